import type { CalmPlan } from "@calm-ldp/calm-core";
import { perObject } from "@calm-ldp/marginal-algebra";
import {
  BIGINT,
  type DuckDBAppender,
  type DuckDBConnection,
  DuckDBDataChunk,
  DuckDBInstance,
  DuckDBPendingResultState,
  type DuckDBPreparedStatement,
  type DuckDBType,
  DuckDBUUIDValue,
  type DuckDBVector,
  INTEGER,
  UUID,
} from "@duckdb/node-api";
import type {
  AcceptedReport,
  CollectorStorage,
  GroupCommitListener,
  RoundReads,
  RoundState,
  SchemaVersionCheck,
  StoredRound,
  StoreResult,
  SupportCounts,
} from "./api.js";
import { RoundClosedError, StorageError } from "./errors.js";
import { GroupCommit } from "./group-commit.js";
import { duckDbSchemaVersion, migrateDuckDb } from "./migrations/duckdb.js";
import type { SchemaMigration } from "./migrations/runner.js";
import { PER_VIEW_SQL, SqlStorageReads } from "./sql-reads.js";
import { bitCounts, duckDbRoundReads } from "./storage/duckdb/campaign-summary.js";
import { cellOffsets, planFromColumn, REPORTS_MARK, stateFromRow, supportFromRows } from "./storage-rows.js";
import { UuidSet, uuidWords } from "./uuid-set.js";

/** Rows per DuckDB data chunk (its standard vector size). */
const CHUNK_ROWS = 2048;
/** Reports per group commit at most. */
const MAX_GROUP_REPORTS = 50_000;

const SCHEMA = [
  "CREATE SEQUENCE IF NOT EXISTS calm_round_no",
  `CREATE TABLE IF NOT EXISTS calm_rounds (
     round_no INTEGER PRIMARY KEY, round_id UUID NOT NULL UNIQUE, created_at VARCHAR NOT NULL,
     plan VARCHAR NOT NULL, request VARCHAR NOT NULL)`,
  // No primary key on (round_no, report_id): the single owning process de-duplicates
  // against its in-memory id set (see openDuckDbStorage); an index would cost ~7 us/report.
  // cell_bits: the report's supported cells as bits (see BITS_MAX_CELLS); added to older files at open.
  `CREATE TABLE IF NOT EXISTS calm_reports (
     round_no INTEGER NOT NULL, report_id UUID NOT NULL, view INTEGER NOT NULL, cell_bits BIGINT)`,
  // One row per supported cell of a report: written by earlier versions, still read and compacted.
  "CREATE TABLE IF NOT EXISTS calm_support (round_no INTEGER NOT NULL, view INTEGER NOT NULL, cell INTEGER NOT NULL)",
  // Support counts of one group commit: one row per (round, view, cell) its reports support
  // (views of more than BITS_MAX_CELLS cells; all views in files of earlier versions).
  `CREATE TABLE IF NOT EXISTS calm_support_counts (
     round_no INTEGER NOT NULL, view INTEGER NOT NULL, cell INTEGER NOT NULL, count INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS calm_counters (
     round_no INTEGER NOT NULL, name VARCHAR NOT NULL, value BIGINT NOT NULL, PRIMARY KEY (round_no, name))`,
  // One row: the last time a health check after a failed write proved that commits work again.
  "CREATE TABLE IF NOT EXISTS calm_health (id INTEGER PRIMARY KEY, checked_at VARCHAR NOT NULL)",
  `CREATE TABLE IF NOT EXISTS calm_round_state (
     round_no INTEGER PRIMARY KEY, closed_at VARCHAR NOT NULL, ids_dropped_at VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS calm_closed_counts (
     round_no INTEGER NOT NULL, view INTEGER NOT NULL, cell INTEGER NOT NULL, count BIGINT NOT NULL,
     PRIMARY KEY (round_no, view, cell))`,
];

/**
 * Views of at most this many cells keep each report's support in its row: bit x
 * of `calm_reports.cell_bits` set when the report supports cell x (a GRR report
 * one bit, an OUE/SUE report its set bits). Wider views store 0 there and count
 * their support per group commit in `calm_support_counts`; rows of earlier
 * versions hold NULL (their support is in `calm_support_counts` or `calm_support`).
 */
const BITS_MAX_CELLS = 64;

/**
 * Per plan: which views keep their support as bits in the report rows (1) and
 * which as group counts (0), and the cells of the widest bit view (0: none). O(m).
 */
const bitViews = perObject((plan: CalmPlan): { readonly narrow: Uint8Array; readonly width: number } => {
  const narrow = new Uint8Array(plan.views.length);
  let width = 0;
  plan.views.forEach((view, v) => {
    if (view.cells > BITS_MAX_CELLS) return;
    narrow[v] = 1;
    width = Math.max(width, view.cells);
  });
  return { narrow, width };
});

/**
 * A round's support counts per (view, cell) while its rows are held (`$1` the
 * round): group counts, older per-report rows, and the bits of the report rows:
 * `count_if(cell_bits & 2^x <> 0)` per view and bit x < the plan's widest bit
 * view, one pass over the round's report rows, unnested into (view, x, n) rows
 * (n > 0 only, so a view's cells beyond its own are never read). When no bit
 * view has more than 31 cells every `cell_bits` fits an INTEGER, and the test
 * runs on `cell_bits::INTEGER` (16 against 19 ms for 1,000,000 rows and 16 bits
 * on one DuckDB thread). Cost: O(held rows x widest bit view); 1,000,000
 * reports of 16-cell views, one DuckDB thread: ~25 ms for the whole statement.
 */
const heldSupportSql = perObject((plan: CalmPlan): string => {
  const { width } = bitViews(plan);
  const counts = bitCounts(width);
  const bits =
    width === 0
      ? ""
      : `UNION ALL SELECT view, cell, n FROM (
      SELECT view, unnest(range(${width}))::INTEGER AS cell, unnest([${counts}]) AS n
      FROM calm_reports WHERE round_no = $1 GROUP BY view) WHERE n > 0`;
  return `SELECT view, cell, sum(n) AS n FROM (
    SELECT view, cell, count AS n FROM calm_support_counts WHERE round_no = $1
    UNION ALL SELECT view, cell, 1 FROM calm_support WHERE round_no = $1
    ${bits}
  ) GROUP BY view, cell`;
});
/** Support counts per (view, cell) of a round: held counts plus dropped rows' counts. */
const supportSql = perObject(
  (plan: CalmPlan): string => `SELECT view, cell, sum(n)::DOUBLE FROM (
    ${heldSupportSql(plan)}
    UNION ALL SELECT view, cell, count FROM calm_closed_counts WHERE round_no = $1 AND cell <> ${REPORTS_MARK}
  ) GROUP BY view, cell`,
);
/** Add a round's rows to its closed counts (`$1` the round), then delete them. */
const compactSql = (plan: CalmPlan): string[] => [
  `INSERT INTO calm_closed_counts SELECT round_no, view, ${REPORTS_MARK}, count(*) FROM calm_reports
     WHERE round_no = $1 GROUP BY round_no, view
     ON CONFLICT DO UPDATE SET count = calm_closed_counts.count + excluded.count`,
  `INSERT INTO calm_closed_counts SELECT $1, view, cell, n FROM (${heldSupportSql(plan)})
     ON CONFLICT DO UPDATE SET count = calm_closed_counts.count + excluded.count`,
  "DELETE FROM calm_reports WHERE round_no = $1",
  "DELETE FROM calm_support WHERE round_no = $1",
  "DELETE FROM calm_support_counts WHERE round_no = $1",
];

type WriteJob =
  | { kind: "round"; round: Omit<StoredRound, "no"> }
  | { kind: "reports"; round: StoredRound; reports: readonly AcceptedReport[] }
  | { kind: "counter"; round: StoredRound; name: string; amount: number }
  | { kind: "close"; round: StoredRound; at: string }
  | { kind: "drop"; closedBefore: string; at: string }
  | { kind: "probe" };
/** What a reports job of a closed round returns (storeReports throws RoundClosedError). */
const CLOSED = Symbol("closed");
type WriteResult = StoredRound | StoreResult | RoundState | string[] | typeof CLOSED | undefined;

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
): Promise<CollectorStorage> {
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
  let schemaMigration: SchemaMigration;
  try {
    schemaMigration = await migrateDuckDb(writer, SCHEMA);
  } catch (error) {
    writer.closeSync();
    reader.closeSync();
    instance.closeSync();
    throw error;
  }
  const closed = (await writer.runAndReadAll("SELECT round_no FROM calm_round_state")).getColumns()[0] ?? [];
  const begin = await writer.prepare("BEGIN TRANSACTION");
  const storage = new DuckDbStorage(instance, writer, begin, reader, new Set(closed as number[]));
  storage.schemaMigration = schemaMigration;
  return storage;
}

class DuckDbStorage extends SqlStorageReads implements CollectorStorage {
  readonly backend = "duckdb";
  /** What opening the file did to its schema (see migrations/duckdb.ts). */
  schemaMigration: SchemaMigration | undefined;
  readonly #instance: DuckDBInstance;
  readonly #writer: DuckDBConnection;
  /** `BEGIN TRANSACTION` prepared on the writer, run synchronously (see {@link DuckDbStorage.#begin}). */
  readonly #beginStatement: DuckDBPreparedStatement;
  readonly #reader: DuckDBConnection;
  readonly #queue: GroupCommit<WriteJob, WriteResult>;
  /** Report ids stored per round number (loaded on the round's first write). */
  readonly #ids = new Map<number, UuidSet>();
  /** Support counts of the rows staged since the last flush, per round: one count per cell of the plan. */
  readonly #support = new Map<number, RoundSupport>();
  /** The rows of the group being built (see {@link StagedRows}). */
  readonly #rows = new StagedRows();
  /**
   * The writer's appenders by table, kept from one transaction to the next (an
   * appender's flush appends inside the connection's open transaction; creating
   * one costs ~0.3 ms on the event loop); closed and forgotten when a group fails.
   */
  readonly #appenders = new Map<string, DuckDBAppender>();
  /** Numbers of the closed rounds (loaded at open; the writer adds to it after each close commits). */
  readonly #closedRounds: Set<number>;
  #reads: Promise<unknown> = Promise.resolve();
  #closed = false;
  /** The last group commit failed (full or read-only disk, ...); cleared by the next one that succeeds. */
  #writeFailed = false;

  constructor(
    instance: DuckDBInstance,
    writer: DuckDBConnection,
    begin: DuckDBPreparedStatement,
    reader: DuckDBConnection,
    closedRounds: Set<number>,
  ) {
    super();
    this.#closedRounds = closedRounds;
    this.#instance = instance;
    this.#writer = writer;
    this.#beginStatement = begin;
    this.#reader = reader;
    this.#queue = new GroupCommit(
      (jobs) => this.#commit(jobs),
      (job) => (job.kind === "reports" ? job.reports.length : 1),
      MAX_GROUP_REPORTS,
    );
  }

  async createRound(round: Omit<StoredRound, "no">): Promise<StoredRound> {
    // One process owns the file: a stored id is found before the insert.
    const stored = await this.findRound(round.id);
    if (stored) return stored;
    return (await this.#submit({ kind: "round", round })) as StoredRound;
  }

  async storeReports(round: StoredRound, reports: readonly AcceptedReport[]): Promise<StoreResult> {
    if (this.#closedRounds.has(round.no)) throw new RoundClosedError(round.id);
    const result = await this.#submit({ kind: "reports", round, reports });
    if (result === CLOSED) throw new RoundClosedError(round.id);
    return result as StoreResult;
  }

  async closeRound(round: StoredRound, at: Date): Promise<RoundState> {
    return (await this.#submit({ kind: "close", round, at: at.toISOString() })) as RoundState;
  }

  async dropClosedIds(closedBefore: Date, at: Date): Promise<string[]> {
    return (await this.#submit({
      kind: "drop",
      closedBefore: closedBefore.toISOString(),
      at: at.toISOString(),
    })) as string[];
  }

  async countRejected(round: StoredRound, reason: string, reports: number): Promise<void> {
    await this.#submit({ kind: "counter", round, name: `rejected:${reason}`, amount: reports });
  }

  async supportCounts(round: StoredRound): Promise<SupportCounts> {
    // One transaction (one snapshot) for both aggregates, so they agree while writes go on.
    const [reports, support] = await this.#readWith(async (reader) => {
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

  /** Reads of many rounds in a fixed number of queries (storage/duckdb/campaign-summary.ts). */
  roundReads(): RoundReads {
    return duckDbRoundReads({
      read: (sql, values) => this.read(sql, values),
      readWith: (body) => this.#readWith(body),
      bitWidth: (plan) => bitViews(plan).width,
    });
  }

  observeGroupCommits(listener: GroupCommitListener): void {
    this.#queue.observe(listener);
  }

  /** Readiness: a probe write committed through the writer, and the file's schema version. */
  async ready(): Promise<SchemaVersionCheck> {
    await this.read("SELECT 1", []);
    await this.#submit({ kind: "probe" });
    return duckDbSchemaVersion((sql) => this.read(sql, []));
  }

  /**
   * Reads `SELECT 1`; after a failed commit, also commits a one-row write (to
   * `calm_health`), so a health check tells whether writes work again.
   */
  async ping(): Promise<void> {
    await this.read("SELECT 1", []);
    if (this.#writeFailed) await this.#submit({ kind: "probe" });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue.idle();
    await this.#reads.catch(() => undefined);
    this.#closeAppenders();
    // Every committed change into the file itself, so the file is whole once this resolves: the
    // native database is freed with its last handle (the garbage collector may run later), and
    // another instance opened on the file meanwhile must not find part of it in the log only.
    // A checkpoint that fails (disk full, read-only) leaves the changes in the write-ahead log,
    // where the next open finds them.
    await this.#writer.run("CHECKPOINT").catch(() => undefined);
    this.#beginStatement.destroySync();
    this.#writer.closeSync();
    this.#reader.closeSync();
    this.#instance.closeSync();
  }

  #submit(job: WriteJob): Promise<WriteResult> {
    if (this.#closed) return Promise.reject(new StorageError("DuckDB storage: closed"));
    return this.#queue.submit(job);
  }

  /** Reads share one connection, one at a time. */
  protected override read(sql: string, values: (string | number)[]): Promise<unknown[][]> {
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

  async #idsOf(round: number): Promise<UuidSet> {
    let ids = this.#ids.get(round);
    if (!ids) {
      const result = await this.#writer.runAndReadAll(
        "SELECT report_id::VARCHAR FROM calm_reports WHERE round_no = $1",
        [round],
      );
      ids = new UuidSet();
      const words = new Uint32Array(4);
      for (const id of (result.getColumns()[0] ?? []) as string[]) {
        uuidWords(id, words, 0);
        ids.add(words, 0);
      }
      this.#ids.set(round, ids);
    }
    return ids;
  }

  #supportOf(round: StoredRound): RoundSupport {
    let support = this.#support.get(round.no);
    if (!support) {
      const offsets = cellOffsets(round.plan);
      support = {
        offsets,
        counts: new Int32Array(offsets[round.plan.views.length]!),
        narrow: bitViews(round.plan).narrow,
      };
      this.#support.set(round.no, support);
    }
    return support;
  }

  /** One transaction for a group of jobs; the group's ids leave the in-memory sets again if it fails. */
  async #commit(jobs: WriteJob[]): Promise<WriteResult[]> {
    const results: WriteResult[] = [];
    // The rows this group stores (#rows): their ids join the round's set at once (one
    // lookup per report also catches repeats within the group) and leave it again if the commit fails.
    const rows = this.#rows;
    rows.reset();
    const closing = new Set<number>(); // rounds this group closes
    const compacted: number[] = []; // rounds whose ids this group drops
    const counters = new Map<string, { round: number; name: string; amount: number }>();
    const addCounter = (round: number, name: string, amount: number) => {
      const key = `${round}\u0000${name}`;
      const entry = counters.get(key) ?? { round, name, amount: 0 };
      entry.amount += amount;
      counters.set(key, entry);
    };
    try {
      for (const job of jobs)
        if (job.kind === "reports" && !this.#closedRounds.has(job.round.no)) await this.#idsOf(job.round.no);
      this.#begin();
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
        } else if (job.kind === "close") {
          const no = job.round.no;
          await this.#writer.run(
            "INSERT INTO calm_round_state VALUES ($1, $2, NULL) ON CONFLICT (round_no) DO NOTHING",
            [no, job.at],
          );
          const rows = await this.#writer.runAndReadAll(
            "SELECT closed_at, ids_dropped_at FROM calm_round_state WHERE round_no = $1",
            [no],
          );
          closing.add(no);
          results.push(stateFromRow(rows.getRows()[0]));
        } else if (job.kind === "drop") {
          // Rows staged by earlier jobs of this group must reach the tables before they are counted.
          await this.#flushRows();
          const due = await this.#writer.runAndReadAll(
            `SELECT s.round_no, r.round_id::VARCHAR, r.plan FROM calm_round_state s JOIN calm_rounds r USING (round_no)
             WHERE s.closed_at <= $1 AND s.ids_dropped_at IS NULL ORDER BY s.round_no`,
            [job.closedBefore],
          );
          for (const [no, , plan] of due.getRows()) {
            const statements = compactSql(planFromColumn(plan));
            for (const statement of statements) await this.#writer.run(statement, [no as number]);
            await this.#writer.run("UPDATE calm_round_state SET ids_dropped_at = $2 WHERE round_no = $1", [
              no as number,
              job.at,
            ]);
            compacted.push(no as number);
          }
          results.push(due.getRows().map((row) => String(row[1])));
        } else if (this.#closedRounds.has(job.round.no) || closing.has(job.round.no)) {
          results.push(CLOSED);
        } else {
          const no = job.round.no;
          const stored = this.#ids.get(no)!;
          const { offsets, counts, narrow } = this.#supportOf(job.round);
          let count = 0;
          for (const report of job.reports) {
            const row = rows.stage(no, report.id, report.view);
            if (!stored.add(rows.ids, 4 * row)) {
              rows.unstage();
              continue;
            }
            count++;
            // Narrow view: the cells as the row's bits (low word, high word). Wide view: group counts.
            let low = 0;
            let high = 0;
            if (narrow[report.view] === 1) {
              for (const cell of report.cells)
                if (cell < 32) low |= 1 << cell;
                else high |= 1 << (cell - 32);
            } else {
              const offset = offsets[report.view]!;
              for (const cell of report.cells) counts[offset + cell]!++;
            }
            rows.bits[2 * row] = low;
            rows.bits[2 * row + 1] = high;
          }
          const duplicates = job.reports.length - count;
          if (duplicates > 0) addCounter(no, "duplicates", duplicates);
          results.push({ stored: count, duplicates });
        }
      }
      await this.#flushRows();
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
      for (let row = 0; row < rows.count; row++) this.#ids.get(rows.rounds[row]!)?.delete(rows.ids, 4 * row);
      for (const { counts } of this.#support.values()) counts.fill(0);
      this.#closeAppenders();
      await this.#writer.run("ROLLBACK").catch(() => undefined);
      throw new StorageError(`DuckDB write failed: ${(error as Error).message.split("\n")[0]}`);
    }
    this.#writeFailed = false;
    // A closed round takes no more reports: its ids need no memory any more.
    for (const no of closing) {
      this.#closedRounds.add(no);
      this.#ids.delete(no);
      this.#support.delete(no);
    }
    for (const no of compacted) this.#ids.delete(no);
    return results;
  }

  /**
   * Append the rows staged since the last flush to the tables (inside the open
   * transaction): the reports (with the bits of their cells), and one
   * support-count row per (round, view, cell) the reports of wide views support
   * (at most those views' cells, whatever the group's size; none for plans
   * without wide views); zeroes the counts.
   */
  async #flushRows(): Promise<void> {
    const rows = this.#rows;
    if (rows.flushed === rows.count) return;
    await this.#appendReports(rows.flushed, rows.count);
    rows.flushed = rows.count;
    const countRows: [number[], number[], number[], number[]] = [[], [], [], []];
    for (const [no, { offsets, counts }] of this.#support)
      for (let view = 0; view + 1 < offsets.length; view++)
        for (let at = offsets[view]!; at < offsets[view + 1]!; at++) {
          if (counts[at] === 0) continue;
          countRows[0].push(no);
          countRows[1].push(view);
          countRows[2].push(at - offsets[view]!);
          countRows[3].push(counts[at]!);
          counts[at] = 0;
        }
    await this.#append(
      "calm_support_counts",
      [INTEGER, INTEGER, INTEGER, INTEGER],
      0,
      countRows[0].length,
      (chunk, start, end) => {
        countRows.forEach((column, j) => {
          setIntegers(chunk.getColumnVector(j), column, start, end);
        });
      },
    );
  }

  /** Append staged rows `from` to `to` (exclusive) to `calm_reports`: round, id (as a UUID), view, cell bits. */
  async #appendReports(from: number, to: number): Promise<void> {
    const rows = this.#rows;
    await this.#append("calm_reports", [INTEGER, UUID, INTEGER, BIGINT], from, to, (chunk, start, end) => {
      setIntegers(chunk.getColumnVector(0), rows.rounds, start, end);
      writeUuids(chunk.getColumnVector(1), rows.ids, start, end);
      setIntegers(chunk.getColumnVector(2), rows.views, start, end);
      writeBigInts(chunk.getColumnVector(3), rows.bits, start, end);
    });
  }

  /**
   * Append rows `from` to `to` (exclusive) to `table` through the writer's
   * appender, a data chunk of up to CHUNK_ROWS rows at a time, each filled by
   * `fill(chunk, start, end)` with rows `start..end` (its row 0 is row `start`).
   */
  async #append(
    table: string,
    types: DuckDBType[],
    from: number,
    to: number,
    fill: (chunk: DuckDBDataChunk, start: number, end: number) => void,
  ): Promise<void> {
    if (from === to) return;
    const appender = await this.#appenderOf(table);
    for (let start = from; start < to; start += CHUNK_ROWS) {
      const end = Math.min(to, start + CHUNK_ROWS);
      const chunk = DuckDBDataChunk.create(types, end - start);
      fill(chunk, start, end);
      appender.appendDataChunk(chunk);
    }
    appender.flushSync();
  }

  /**
   * Start the group's transaction synchronously: the prepared `BEGIN` run to its
   * result by `runTask` on the event loop (microseconds; DuckDB takes the
   * snapshot at the first statement), instead of an asynchronous query whose
   * answer waited its turn behind the HTTP callbacks (~0.4 ms per group,
   * 0.5 us per report, measured). Its pending result is never read: the next
   * statement on the connection replaces it.
   */
  #begin(): void {
    const pending = this.#beginStatement.start();
    while (pending.runTask() !== DuckDBPendingResultState.RESULT_READY);
  }

  /** The writer's appender of `table`, created on first use. */
  async #appenderOf(table: string): Promise<DuckDBAppender> {
    let appender = this.#appenders.get(table);
    if (!appender) {
      appender = await this.#writer.createAppender(table);
      this.#appenders.set(table, appender);
    }
    return appender;
  }

  /** Close and forget the writer's appenders (after a failed group, or at close). */
  #closeAppenders(): void {
    for (const appender of this.#appenders.values()) {
      try {
        appender.closeSync();
      } catch {
        // Its rows go with the transaction rolled back next; a new appender is made on next use.
      }
    }
    this.#appenders.clear();
  }
}

/**
 * A round's support counts while a group is built: `counts[offsets[view] + cell]`
 * (wide views only), and which views keep their support as bits (`narrow[view]` 1).
 */
interface RoundSupport {
  readonly offsets: Int32Array;
  readonly counts: Int32Array;
  readonly narrow: Uint8Array;
}

/**
 * The report rows of the group being built, in typed arrays that grow by
 * doubling and are reused by the next group: round, view, the id's four
 * words (see `uuidWords`) and the cell bits' low and high 32 bits (set by the
 * caller after `stage`) per row. `flushed` rows have reached the appender.
 */
class StagedRows {
  rounds = new Int32Array(1024);
  views = new Int32Array(1024);
  ids = new Uint32Array(4 * 1024);
  bits = new Int32Array(2 * 1024);
  count = 0;
  flushed = 0;

  reset(): void {
    this.count = 0;
    this.flushed = 0;
  }

  /** Stage a row (parsing the id); returns its index. */
  stage(round: number, id: string, view: number): number {
    if (this.count === this.rounds.length) {
      const grow = <T extends Int32Array | Uint32Array>(old: T, next: T) => {
        next.set(old);
        return next;
      };
      this.rounds = grow(this.rounds, new Int32Array(2 * this.count));
      this.views = grow(this.views, new Int32Array(2 * this.count));
      this.ids = grow(this.ids, new Uint32Array(8 * this.count));
      this.bits = grow(this.bits, new Int32Array(4 * this.count));
    }
    const row = this.count++;
    uuidWords(id, this.ids, 4 * row);
    this.rounds[row] = round;
    this.views[row] = view;
    return row;
  }

  /** Take back the last staged row (a duplicate). */
  unstage(): void {
    this.count--;
  }
}

/** Write `values[start..end)` into an INTEGER vector (its row 0 is `start`). O(end - start). */
function setIntegers(vector: DuckDBVector, values: ArrayLike<number>, start: number, end: number): void {
  for (let row = start; row < end; row++) vector.setItem(row - start, values[row]!);
  vector.flush();
}

/** Whether this machine stores integers little-endian (as DuckDB's vectors then do). */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Write the 64-bit integers of rows `from` to `to` (`words[2 * row]` the low
 * 32 bits, `words[2 * row + 1]` the high ones) into a chunk's BIGINT vector:
 * copied as 32-bit words into its `BigInt64Array` when it exposes one on a
 * little-endian machine (@duckdb/node-api 1.5.6's `items`), else one BigInt per row. O(rows).
 */
function writeBigInts(vector: DuckDBVector, words: Int32Array, from: number, to: number): void {
  const items = (vector as unknown as { items?: unknown }).items;
  if (LITTLE_ENDIAN && items instanceof BigInt64Array && items.length === to - from) {
    new Int32Array(items.buffer, items.byteOffset, 2 * (to - from)).set(words.subarray(2 * from, 2 * to));
  } else {
    for (let row = from; row < to; row++)
      vector.setItem(row - from, (BigInt(words[2 * row + 1]!) << 32n) | BigInt(words[2 * row]! >>> 0));
  }
  vector.flush();
}

/**
 * Write the ids of staged rows `from` to `to` into a chunk's UUID vector. DuckDB
 * holds a UUID as a 128-bit integer with its top bit flipped, least significant
 * 64 bits first, little-endian: written straight into the vector's buffer when
 * the vector exposes it (@duckdb/node-api 1.5.6's `DuckDBUUIDVector.dataView`,
 * 0.2 us per id), else one `DuckDBUUIDValue` (a BigInt) per id. O(rows).
 */
function writeUuids(vector: DuckDBVector, ids: Uint32Array, from: number, to: number): void {
  const data = (vector as unknown as { dataView?: unknown }).dataView;
  if (data instanceof DataView && data.byteLength === 16 * (to - from)) {
    for (let row = from; row < to; row++) {
      const at = 16 * (row - from);
      data.setUint32(at, ids[4 * row + 3]!, true);
      data.setUint32(at + 4, ids[4 * row + 2]!, true);
      data.setUint32(at + 8, ids[4 * row + 1]!, true);
      data.setUint32(at + 12, (ids[4 * row]! ^ 0x80000000) >>> 0, true);
    }
  } else {
    for (let row = from; row < to; row++) {
      let value = 0n;
      for (let w = 0; w < 4; w++) value = (value << 32n) | BigInt(ids[4 * row + w]!);
      vector.setItem(row - from, DuckDBUUIDValue.fromUint128(value));
    }
  }
  vector.flush();
}
