import {
  type DuckDBConnection,
  DuckDBDataChunk,
  DuckDBInstance,
  type DuckDBType,
  INTEGER,
  VARCHAR,
} from "@duckdb/node-api";
import type {
  AcceptedReport,
  CollectorStorage,
  RoundCounts,
  StoredRound,
  StoreResult,
  SupportCounts,
} from "./api.js";
import { StorageError } from "./errors.js";
import { GroupCommit } from "./group-commit.js";
import { countsFromRows, roundFromRow, supportFromRows } from "./storage-rows.js";

/** Rows per DuckDB data chunk (its standard vector size). */
const CHUNK_ROWS = 2048;
/** Reports per group commit at most. */
const MAX_GROUP_REPORTS = 50_000;

const SCHEMA = [
  "CREATE SEQUENCE IF NOT EXISTS calm_round_no",
  `CREATE TABLE IF NOT EXISTS calm_rounds (
     round_no INTEGER PRIMARY KEY, round_id UUID NOT NULL UNIQUE, created_at VARCHAR NOT NULL,
     plan VARCHAR NOT NULL, request VARCHAR NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS calm_reports (
     round_no INTEGER NOT NULL, report_id UUID NOT NULL, view INTEGER NOT NULL,
     PRIMARY KEY (round_no, report_id))`,
  "CREATE TABLE IF NOT EXISTS calm_support (round_no INTEGER NOT NULL, view INTEGER NOT NULL, cell INTEGER NOT NULL)",
  `CREATE TABLE IF NOT EXISTS calm_counters (
     round_no INTEGER NOT NULL, name VARCHAR NOT NULL, value BIGINT NOT NULL, PRIMARY KEY (round_no, name))`,
  // One row: the last time a health check after a failed write proved that commits work again.
  "CREATE TABLE IF NOT EXISTS calm_health (id INTEGER PRIMARY KEY, checked_at VARCHAR NOT NULL)",
];

type WriteJob =
  | { kind: "round"; round: Omit<StoredRound, "no"> }
  | { kind: "reports"; round: StoredRound; reports: readonly AcceptedReport[] }
  | { kind: "counter"; round: StoredRound; name: string; amount: number }
  | { kind: "probe" };
type WriteResult = StoredRound | StoreResult | undefined;

/** Options of {@link openDuckDbStorage}. */
export interface DuckDbStorageOptions {
  /** DuckDB settings passed to the instance (e.g. `{ threads: "2" }`). */
  readonly settings?: Record<string, string>;
}

/**
 * Open (creating if needed) a DuckDB database file as collector storage. DuckDB
 * lets one process open a file for writing, so one collector owns it; within the
 * process a single writer connection commits in groups (see `GroupCommit`): every
 * write resolves after DuckDB's commit (write-ahead log synced), so acknowledged
 * reports survive a crash (`kill -9`). Report ids are de-duplicated against the
 * round's ids, loaded from the table on the round's first write after start
 * (O(reports of the round)), and the table's primary key (round, report id)
 * backs that check. Rows reach the tables through temporary staging tables (the
 * appender, synchronous but cheap there) and `INSERT ... SELECT` (index upkeep
 * off the event loop). Reads run on a second connection (MVCC snapshot).
 * Counting is `GROUP BY view` / `GROUP BY view, cell` in SQL. Memory: about 100 bytes per
 * stored report id of the rounds written since start.
 */
export async function openDuckDbStorage(
  path: string,
  options: DuckDbStorageOptions = {},
): Promise<CollectorStorage> {
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(path, options.settings);
  } catch (error) {
    throw new StorageError(
      `openDuckDbStorage: cannot open ${JSON.stringify(path)}: ${(error as Error).message.split("\n")[0]}`,
    );
  }
  const writer = await instance.connect();
  const reader = await instance.connect();
  for (const statement of SCHEMA) await writer.run(statement);
  // Staging tables (temporary: no index, no write-ahead log): the appender fills them
  // synchronously but cheaply, then INSERT ... SELECT moves the rows, off the event loop.
  await writer.run("CREATE TEMP TABLE stage_reports (round_no INTEGER, report_id UUID, view INTEGER)");
  await writer.run("CREATE TEMP TABLE stage_support (round_no INTEGER, view INTEGER, cell INTEGER)");
  return new DuckDbStorage(instance, writer, reader);
}

class DuckDbStorage implements CollectorStorage {
  readonly backend = "duckdb";
  readonly #instance: DuckDBInstance;
  readonly #writer: DuckDBConnection;
  readonly #reader: DuckDBConnection;
  readonly #queue: GroupCommit<WriteJob, WriteResult>;
  /** Report ids stored per round number (loaded on the round's first write). */
  readonly #ids = new Map<number, Set<string>>();
  #reads: Promise<unknown> = Promise.resolve();
  #closed = false;
  /** The last group commit failed (full or read-only disk, ...); cleared by the next one that succeeds. */
  #writeFailed = false;

  constructor(instance: DuckDBInstance, writer: DuckDBConnection, reader: DuckDBConnection) {
    this.#instance = instance;
    this.#writer = writer;
    this.#reader = reader;
    this.#queue = new GroupCommit(
      (jobs) => this.#commit(jobs),
      (job) => (job.kind === "reports" ? job.reports.length : 1),
      MAX_GROUP_REPORTS,
    );
  }

  async createRound(round: Omit<StoredRound, "no">): Promise<StoredRound> {
    return (await this.#submit({ kind: "round", round })) as StoredRound;
  }

  async findRound(id: string): Promise<StoredRound | undefined> {
    const rows = await this.#read(
      "SELECT round_no, round_id::VARCHAR, created_at, plan, request FROM calm_rounds WHERE round_id = $1::UUID",
      [id],
    );
    return rows.length === 0 ? undefined : roundFromRow(rows[0]!);
  }

  async storeReports(round: StoredRound, reports: readonly AcceptedReport[]): Promise<StoreResult> {
    return (await this.#submit({ kind: "reports", round, reports })) as StoreResult;
  }

  async countRejected(round: StoredRound, reason: string, reports: number): Promise<void> {
    await this.#submit({ kind: "counter", round, name: `rejected:${reason}`, amount: reports });
  }

  async counts(round: StoredRound): Promise<RoundCounts> {
    const perViewRows = await this.#read(
      "SELECT view, count(*)::DOUBLE FROM calm_reports WHERE round_no = $1 GROUP BY view",
      [round.no],
    );
    const counterRows = await this.#read(
      "SELECT name, value::DOUBLE FROM calm_counters WHERE round_no = $1",
      [round.no],
    );
    return countsFromRows(round, perViewRows, counterRows);
  }

  async supportCounts(round: StoredRound): Promise<SupportCounts> {
    // One transaction (one snapshot) for both aggregates, so they agree while writes go on.
    const [reports, support] = await this.#readWith(async (reader) => {
      await reader.run("BEGIN TRANSACTION");
      try {
        const perView = await reader.runAndReadAll(
          "SELECT view, count(*)::DOUBLE FROM calm_reports WHERE round_no = $1 GROUP BY view",
          [round.no],
        );
        const cells = await reader.runAndReadAll(
          "SELECT view, cell, count(*)::DOUBLE FROM calm_support WHERE round_no = $1 GROUP BY view, cell",
          [round.no],
        );
        return [perView.getRows(), cells.getRows()];
      } finally {
        await reader.run("COMMIT");
      }
    });
    return supportFromRows(round.plan, reports!, support!);
  }

  /**
   * Reads `SELECT 1`; after a failed commit, also commits a one-row write (to
   * `calm_health`), so a health check tells whether writes work again.
   */
  async ping(): Promise<void> {
    await this.#read("SELECT 1", []);
    if (this.#writeFailed) await this.#submit({ kind: "probe" });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue.idle();
    await this.#reads.catch(() => undefined);
    this.#writer.closeSync();
    this.#reader.closeSync();
    this.#instance.closeSync();
  }

  #submit(job: WriteJob): Promise<WriteResult> {
    if (this.#closed) return Promise.reject(new StorageError("DuckDB storage: closed"));
    return this.#queue.submit(job);
  }

  /** Reads share one connection, one at a time. */
  #read(sql: string, values: (string | number)[]): Promise<unknown[][]> {
    return this.#readWith(
      async (reader) => (await reader.runAndReadAll(sql, values)).getRows() as unknown[][],
    );
  }

  #readWith<T>(body: (reader: DuckDBConnection) => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new StorageError("DuckDB storage: closed"));
    const result = this.#reads.then(() => body(this.#reader));
    this.#reads = result.catch(() => undefined);
    return result.catch((error) => {
      throw new StorageError(`DuckDB read failed: ${(error as Error).message.split("\n")[0]}`);
    });
  }

  async #idsOf(round: number): Promise<Set<string>> {
    let ids = this.#ids.get(round);
    if (!ids) {
      const result = await this.#writer.runAndReadAll(
        "SELECT report_id::VARCHAR FROM calm_reports WHERE round_no = $1",
        [round],
      );
      ids = new Set(result.getColumns()[0] as string[] | undefined);
      this.#ids.set(round, ids);
    }
    return ids;
  }

  /** One transaction for a group of jobs; ids join the in-memory sets only after the commit. */
  async #commit(jobs: WriteJob[]): Promise<WriteResult[]> {
    const results: WriteResult[] = [];
    const reportRows: [number[], string[], number[]] = [[], [], []];
    const supportRows: [number[], number[], number[]] = [[], [], []];
    const fresh = new Map<number, Set<string>>(); // ids stored by this group, per round
    const counters = new Map<string, { round: number; name: string; amount: number }>();
    const addCounter = (round: number, name: string, amount: number) => {
      const key = `${round}\u0000${name}`;
      const entry = counters.get(key) ?? { round, name, amount: 0 };
      entry.amount += amount;
      counters.set(key, entry);
    };
    try {
      for (const job of jobs) if (job.kind === "reports") await this.#idsOf(job.round.no);
      await this.#writer.run("BEGIN TRANSACTION");
      for (const job of jobs) {
        if (job.kind === "round") {
          const rows = await this.#writer.runAndReadAll(
            "INSERT INTO calm_rounds VALUES (nextval('calm_round_no'), $1::UUID, $2, $3, $4) RETURNING round_no",
            [
              job.round.id,
              job.round.createdAt,
              JSON.stringify(job.round.plan),
              JSON.stringify(job.round.request),
            ],
          );
          results.push({ ...job.round, no: rows.getRows()[0]![0] as number });
        } else if (job.kind === "probe") {
          await this.#writer.run("INSERT OR REPLACE INTO calm_health VALUES (1, $1)", [
            new Date().toISOString(),
          ]);
          results.push(undefined);
        } else if (job.kind === "counter") {
          addCounter(job.round.no, job.name, job.amount);
          results.push(undefined);
        } else {
          const no = job.round.no;
          const stored = this.#ids.get(no)!;
          const added = fresh.get(no) ?? new Set<string>();
          fresh.set(no, added);
          let count = 0;
          for (const report of job.reports) {
            if (stored.has(report.id) || added.has(report.id)) continue;
            added.add(report.id);
            count++;
            reportRows[0].push(no);
            reportRows[1].push(report.id);
            reportRows[2].push(report.view);
            for (const cell of report.cells) {
              supportRows[0].push(no);
              supportRows[1].push(report.view);
              supportRows[2].push(cell);
            }
          }
          const duplicates = job.reports.length - count;
          if (duplicates > 0) addCounter(no, "duplicates", duplicates);
          results.push({ stored: count, duplicates });
        }
      }
      if (reportRows[0].length > 0) {
        await this.#append("stage_reports", [INTEGER, VARCHAR, INTEGER], reportRows);
        await this.#append("stage_support", [INTEGER, INTEGER, INTEGER], supportRows);
        await this.#writer.run("INSERT INTO calm_reports SELECT * FROM stage_reports");
        await this.#writer.run("INSERT INTO calm_support SELECT * FROM stage_support");
        await this.#writer.run("DELETE FROM stage_reports");
        await this.#writer.run("DELETE FROM stage_support");
      }
      for (const { round, name, amount } of counters.values()) {
        await this.#writer.run(
          `INSERT INTO calm_counters VALUES ($1, $2, $3) ON CONFLICT (round_no, name)
           DO UPDATE SET value = calm_counters.value + excluded.value`,
          [round, name, amount],
        );
      }
      await this.#writer.run("COMMIT");
    } catch (error) {
      this.#writeFailed = true;
      await this.#writer.run("ROLLBACK").catch(() => undefined);
      throw new StorageError(`DuckDB write failed: ${(error as Error).message.split("\n")[0]}`);
    }
    this.#writeFailed = false;
    for (const [no, ids] of fresh) {
      const set = this.#ids.get(no)!;
      for (const id of ids) set.add(id);
    }
    return results;
  }

  async #append(table: string, types: DuckDBType[], columns: unknown[][]): Promise<void> {
    const rows = columns[0]!.length;
    if (rows === 0) return;
    const appender = await this.#writer.createAppender(table, "main", "temp");
    try {
      for (let start = 0; start < rows; start += CHUNK_ROWS) {
        const end = Math.min(rows, start + CHUNK_ROWS);
        const chunk = DuckDBDataChunk.create(types, end - start);
        columns.forEach((column, j) => {
          chunk.setColumnValues(j, column.slice(start, end) as never);
        });
        appender.appendDataChunk(chunk);
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
  }
}
