import { DuckDBInstance } from "@duckdb/node-api";
import type * as api from "../../api.js";
import { StorageError } from "../../errors.js";
import { duckDbSchemaVersion } from "../../migrations/duckdb.js";
import type { SchemaMigration } from "../../migrations/runner.js";
import { droppedCounters } from "../../storage-rows.js";
import { SqlStorageReads } from "../shared/sql-reads.js";
import { duckDbRoundReads } from "./campaign-summary.js";
import { DuckDbWriter } from "./ingest.js";
import { DuckDbReader } from "./reads.js";
import { prepareSchema } from "./schema.js";
import { bitViews } from "./support-sql.js";

/** Options of {@link openDuckDbStorage}. */
export interface DuckDbStorageOptions {
  /**
   * DuckDB settings passed to the instance (e.g. `{ memory_limit: "1GB" }`).
   * `threads` defaults to `"1"` here (DuckDB's own default: one per core): the
   * collector's event loop needs a core, and on the 2-core bench machine one
   * DuckDB thread stored reports with less CPU and at a higher rate (median of
   * six alternating runs: 210,000 against 134,000 reports/s through HTTP, 4.9
   * against 6.6 us of collector CPU per report), while an 8-way marginal's SQL
   * over 10^6 reports took 15 to 17 ms instead of 10 to 12 ms (quiet machine).
   * Give `threads` for faster large queries on a machine with cores to spare.
   */
  readonly settings?: Record<string, string>;
}

/**
 * Open (creating if needed) a DuckDB database file as collector storage. DuckDB
 * lets one process open a file for writing, so one collector owns it; within the
 * process a single writer connection commits in groups (see `GroupCommit`): every
 * write resolves after DuckDB's commit (write-ahead log synced), so acknowledged
 * reports survive a crash (`kill -9`). Report ids are de-duplicated against the
 * round's ids held in memory as 128-bit keys (`UuidSet`), loaded from the table on the round's first write
 * after start (O(reports of the round)); a group's ids join it as the group is
 * built and leave it again if the commit fails (groups run one at a time, so no
 * other write sees them meanwhile); that check is the whole of it, since this process is the file's
 * only writer: the reports table has no key (an index on (round, report id) cost
 * ~7 us of DuckDB CPU per report; files written with that key are copied into a
 * table without it at open, once). A report's supported cells go into its own
 * row as bits (`cell_bits`, views of at most BITS_MAX_CELLS = 64 cells), so for
 * such plans a group commit appends its report rows and nothing else; the
 * support counts are computed when read (one `count_if` per bit, see
 * `heldSupportSql`). Views with more cells keep group counts: a group commit adds one
 * `calm_support_counts` row per (round, view, cell) their reports support (at
 * most those views' cells per group). Files of earlier versions keep working:
 * `cell_bits` is added (NULL in their rows), and their `calm_support_counts`
 * rows and older `calm_support` rows (one per cell) are summed with the bits.
 * Measured against group counts for every view (1,000,000 reports of 16-cell
 * views through HTTP, 20 alternating runs each): 8% less collector CPU per report,
 * 5% more reports/s, the 8-way SQL 26 ms against 15 ms. Rows reach the
 * tables through the writer's appenders (one per table, kept across groups) inside
 * the group's transaction (synchronous on the event loop, ~1.3 us per report with
 * the rows' typed arrays written into the data chunks: ids as UUIDs, not text; a
 * failed commit rolls them back); the group's BEGIN runs synchronously (a
 * prepared statement run to its result on the event loop). A group counts
 * its support in one `Int32Array` per round (the plan's cells, view after view).
 * Reads run on a second connection (MVCC snapshot).
 * Counting is `GROUP BY view` / `GROUP BY view, cell` in SQL. Memory: 32 to 64 bytes per
 * stored report id of the open rounds written since start (a closed round's ids leave memory).
 */
export async function openDuckDbStorage(
  path: string,
  options: DuckDbStorageOptions = {},
): Promise<api.CollectorStorage> {
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(path, { threads: "1", ...options.settings });
  } catch (error) {
    throw new StorageError(
      `openDuckDbStorage: cannot open ${JSON.stringify(path)}: ${(error as Error).message.split("\n")[0]}`,
    );
  }
  const writer = await instance.connect();
  const reader = await instance.connect();
  const schemaMigration = await prepareSchema(instance, writer, reader);
  const closed = (await writer.runAndReadAll("SELECT round_no FROM calm_round_state")).getColumns()[0] ?? [];
  const begin = await writer.prepare("BEGIN TRANSACTION");
  return new DuckDbStorage(
    instance,
    new DuckDbWriter(writer, begin, new Set(closed as number[])),
    new DuckDbReader(reader),
    schemaMigration,
  );
}

/**
 * The DuckDB storage: the shared SQL reads, and each other method handed to the
 * file of its concern: writes to the writer's group commit (ingest.ts, whose
 * jobs run the round lifecycle's statements of rounds.ts), reads to the reader
 * connection (reads.ts).
 */
class DuckDbStorage extends SqlStorageReads implements api.CollectorStorage {
  readonly backend = "duckdb";
  readonly #instance: DuckDBInstance;
  readonly #writer: DuckDbWriter;
  readonly #reader: DuckDbReader;

  /** `schemaMigration`: what opening the file did to its schema (see migrations/duckdb.ts). */
  constructor(
    instance: DuckDBInstance,
    writer: DuckDbWriter,
    reader: DuckDbReader,
    readonly schemaMigration: SchemaMigration,
  ) {
    super();
    this.#instance = instance;
    this.#writer = writer;
    this.#reader = reader;
  }

  async createRound(round: Omit<api.StoredRound, "no">): Promise<api.StoredRound> {
    // One process owns the file: a stored id is found before the insert.
    const stored = await this.findRound(round.id);
    if (stored) return stored;
    return (await this.#writer.submit({ kind: "round", round })) as api.StoredRound;
  }

  storeReports(round: api.StoredRound, reports: readonly api.AcceptedReport[]): Promise<api.StoreResult> {
    return this.#writer.storeReports(round, reports);
  }

  async closeRound(round: api.StoredRound, at: Date): Promise<api.RoundState> {
    return (await this.#writer.submit({ kind: "close", round, at: at.toISOString() })) as api.RoundState;
  }

  async dropClosedIds(closedBefore: Date, at: Date): Promise<string[]> {
    return (await this.#writer.submit({
      kind: "drop",
      closedBefore: closedBefore.toISOString(),
      at: at.toISOString(),
    })) as string[];
  }

  async countRejected(round: api.StoredRound, reason: string, reports: number): Promise<void> {
    await this.#writer.submit({ kind: "counter", round, name: `rejected:${reason}`, amount: reports });
  }

  /** Each view's counter (`dropped:<reason>:<view>`) added in the writer's next group commit. */
  async countDropped(round: api.StoredRound, reason: string, perView: readonly number[]): Promise<void> {
    const counters = droppedCounters(reason, perView);
    await Promise.all(counters.map((counter) => this.#writer.submit({ kind: "counter", round, ...counter })));
  }

  supportCounts(round: api.StoredRound): Promise<api.SupportCounts> {
    return this.#reader.supportCounts(round);
  }

  /** Reads of many rounds in a fixed number of queries (campaign-summary.ts). */
  roundReads(): api.RoundReads {
    return duckDbRoundReads({
      read: (sql, values) => this.read(sql, values),
      readWith: (body) => this.#reader.readWith(body),
      bitWidth: (plan) => bitViews(plan).width,
    });
  }

  observeGroupCommits(listener: api.GroupCommitListener): void {
    this.#writer.observe(listener);
  }

  /** Readiness: a probe write committed through the writer, and the file's schema version. */
  async ready(): Promise<api.SchemaVersionCheck> {
    await this.read("SELECT 1", []);
    await this.#writer.submit({ kind: "probe" });
    return duckDbSchemaVersion((sql) => this.read(sql, []));
  }

  /**
   * Reads `SELECT 1`; after a failed commit, also commits a one-row write (to
   * `calm_health`), so a health check tells whether writes work again.
   */
  async ping(): Promise<void> {
    await this.read("SELECT 1", []);
    if (this.#writer.writeFailed) await this.#writer.submit({ kind: "probe" });
  }

  async close(): Promise<void> {
    if (this.#writer.closed) return;
    this.#writer.closed = true;
    this.#reader.closed = true;
    await this.#writer.idle();
    await this.#reader.settled();
    await this.#writer.close(); // checkpoints: every committed change into the file itself
    this.#reader.connection.closeSync();
    this.#instance.closeSync();
  }

  /** Reads share one connection, one at a time. */
  protected override read(sql: string, values: (string | number)[]): Promise<unknown[][]> {
    return this.#reader.read(sql, values);
  }
}
