import type { DuckDBConnection } from "@duckdb/node-api";
import type { StoredRound, SupportCounts } from "../../api.js";
import { StorageError } from "../../errors.js";
import { supportFromRows } from "../../storage-rows.js";
import { PER_VIEW_SQL } from "../shared/sql.js";
import { supportSql } from "./support-sql.js";

/**
 * The reader connection: reads share it, one at a time (each sees the last
 * committed snapshot: DuckDB's MVCC); every failure is a `StorageError`, and
 * every read after {@link DuckDbReader.closed} is set a `StorageError` "closed".
 */
export class DuckDbReader {
  /** Set when the storage closes: later reads fail. */
  closed = false;
  #reads: Promise<unknown> = Promise.resolve();

  constructor(readonly connection: DuckDBConnection) {}

  /** One read statement with positional parameters; rows as arrays. */
  read(sql: string, values: (string | number)[]): Promise<unknown[][]> {
    return this.readWith(
      async (reader) => (await reader.runAndReadAll(sql, values)).getRows() as unknown[][],
    );
  }

  /**
   * A round's reports per view and support counts per (view, cell), in one
   * transaction (one snapshot) for both aggregates, so they agree while writes go on.
   */
  async supportCounts(round: StoredRound): Promise<SupportCounts> {
    const [reports, support] = await this.readWith(async (reader) => {
      await reader.run("BEGIN TRANSACTION");
      try {
        const perView = await reader.runAndReadAll(PER_VIEW_SQL, [round.no]);
        const cells = await reader.runAndReadAll(supportSql(round.plan), [round.no]);
        return [perView.getRows(), cells.getRows()];
      } finally {
        await reader.run("COMMIT");
      }
    });
    return supportFromRows(round.plan, reports!, support!);
  }

  /** Resolves when the reads queued now have ended (whatever their outcome). */
  async settled(): Promise<void> {
    await this.#reads.catch(() => undefined);
  }

  /** `body` on the connection after the reads queued before it (alone: reads run one at a time). */
  readWith<T>(body: (reader: DuckDBConnection) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new StorageError("DuckDB storage: closed"));
    const result = this.#reads.then(() => body(this.connection));
    this.#reads = result.catch(() => undefined);
    return result.catch((error) => {
      throw new StorageError(`DuckDB read failed: ${(error as Error).message.split("\n")[0]}`);
    });
  }
}
