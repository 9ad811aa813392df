import pg from "pg";
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

/** Any constant: the advisory lock that serialises schema creation between processes. */
const MIGRATION_LOCK = 0x63616c6d;
/** SQLSTATEs worth retrying: serialization failure, deadlock detected. */
const RETRYABLE = new Set(["40001", "40P01"]);
const MAX_ATTEMPTS = 5;
/** Reports per group commit at most. */
const MAX_GROUP_REPORTS = 20_000;

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS calm_rounds (
     round_no INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY, round_id UUID NOT NULL UNIQUE,
     created_at TEXT NOT NULL, plan TEXT NOT NULL, request TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS calm_reports (
     round_no INTEGER NOT NULL, report_id UUID NOT NULL, view INTEGER NOT NULL,
     PRIMARY KEY (round_no, report_id))`,
  "CREATE TABLE IF NOT EXISTS calm_support (round_no INTEGER NOT NULL, view INTEGER NOT NULL, cell INTEGER NOT NULL)",
  "CREATE INDEX IF NOT EXISTS calm_support_round ON calm_support (round_no)",
  `CREATE TABLE IF NOT EXISTS calm_counters (
     round_no INTEGER NOT NULL, name TEXT NOT NULL, value BIGINT NOT NULL, PRIMARY KEY (round_no, name))`,
];

/** Options of {@link openPostgresStorage}. */
export interface PostgresStorageOptions {
  /** Connections in the pool (default 8). */
  readonly poolSize?: number;
  /** Time limit of opening one connection, in ms (default 5000); then the call fails with `StorageError`. */
  readonly connectTimeoutMs?: number;
}

/**
 * PostgreSQL as collector storage, shared by any number of collector processes:
 * the schema is created once under an advisory lock; batches are stored with
 * group commit (`GroupCommit`: the batches that arrive while a transaction runs
 * share the next one), one transaction per group (`INSERT ... ON CONFLICT DO
 * NOTHING RETURNING` on the primary key (round, report id) decides which reports
 * are new, in id order so concurrent transactions, also of other processes, lock
 * in one order; their support rows follow), retried on deadlock/serialization
 * failure, committed with the server's default `synchronous_commit = on` before
 * any batch of the group resolves. Counting is `GROUP BY view` / `GROUP BY view,
 * cell` in SQL.
 */
export async function openPostgresStorage(
  url: string,
  options: PostgresStorageOptions = {},
): Promise<CollectorStorage> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 8,
    // While the server is away, fail fast (HTTP 503) rather than queue requests.
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    keepAlive: true,
  });
  pool.on("error", () => undefined); // an idle client lost its connection; the pool drops it
  try {
    await transaction(pool, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
      for (const statement of SCHEMA) await client.query(statement);
    });
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new StorageError(`openPostgresStorage: cannot prepare the database: ${(error as Error).message}`);
  }
  return new PostgresStorage(pool);
}

/**
 * Run `body` in a transaction on a pooled connection, retried on deadlock or
 * serialization failure. A connection that fails under us (the server restarted,
 * the socket dropped: the client then emits `error`, which would crash the
 * process with no listener, since the pool listens only while a client is idle)
 * is caught here, destroyed rather than returned to the pool, and the call
 * rejects; the pool opens fresh connections for later calls.
 */
async function transaction<T>(pool: pg.Pool, body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken = error;
    };
    client.on("error", onError);
    try {
      await client.query("BEGIN");
      const result = await body(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      if (broken === undefined)
        await client.query("ROLLBACK").catch((rollback: Error) => {
          broken = rollback;
        });
      const code = (error as { code?: string }).code;
      if (broken === undefined && attempt < MAX_ATTEMPTS && code !== undefined && RETRYABLE.has(code))
        continue;
      throw error;
    } finally {
      client.removeListener("error", onError);
      client.release(broken);
    }
  }
}

type StoreJob = { round: StoredRound; reports: readonly AcceptedReport[] };

class PostgresStorage implements CollectorStorage {
  readonly backend = "postgres";
  readonly #pool: pg.Pool;
  readonly #queue: GroupCommit<StoreJob, StoreResult>;
  #closed = false;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
    this.#queue = new GroupCommit(
      (jobs) => this.#storeGroup(jobs),
      (job) => job.reports.length,
      MAX_GROUP_REPORTS,
    );
  }

  createRound(round: Omit<StoredRound, "no">): Promise<StoredRound> {
    return this.#write(async (client) => {
      const result = await client.query(
        `INSERT INTO calm_rounds (round_id, created_at, plan, request) VALUES ($1, $2, $3, $4)
         RETURNING round_no`,
        [round.id, round.createdAt, JSON.stringify(round.plan), JSON.stringify(round.request)],
      );
      return { ...round, no: Number(result.rows[0].round_no) };
    });
  }

  async findRound(id: string): Promise<StoredRound | undefined> {
    const rows = await this.#read(
      "SELECT round_no, round_id::text, created_at, plan, request FROM calm_rounds WHERE round_id = $1",
      [id],
    );
    return rows.length === 0 ? undefined : roundFromRow(rows[0]!);
  }

  storeReports(round: StoredRound, reports: readonly AcceptedReport[]): Promise<StoreResult> {
    if (this.#closed) return Promise.reject(new StorageError("PostgreSQL storage: closed"));
    return this.#queue.submit({ round, reports });
  }

  /**
   * One transaction for a group of batches (group commit): the group's reports,
   * de-duplicated in submission order (the first occurrence of a (round, id)
   * wins) and sorted by (round, id) so concurrent transactions lock rows in one
   * order, go in with one `INSERT ... ON CONFLICT DO NOTHING RETURNING`; the
   * support rows of the new ones with one more `INSERT`; duplicates are counted
   * per round. Resolves (every batch of the group) after COMMIT. O(reports of the
   * group x cells) work, 4 + rounds statements, one WAL flush.
   */
  #storeGroup(jobs: StoreJob[]): Promise<StoreResult[]> {
    const first = new Map<string, { job: number; round: number; report: AcceptedReport }>();
    jobs.forEach((job, j) => {
      for (const report of job.reports) {
        const key = `${job.round.no}/${report.id}`;
        if (!first.has(key)) first.set(key, { job: j, round: job.round.no, report });
      }
    });
    const ordered = [...first.values()].sort((a, b) =>
      a.round !== b.round
        ? a.round - b.round
        : a.report.id < b.report.id
          ? -1
          : a.report.id > b.report.id
            ? 1
            : 0,
    );
    return this.#write(async (client) => {
      const inserted = await client.query({
        text: `INSERT INTO calm_reports (round_no, report_id, view)
         SELECT no, id, view FROM unnest($1::int[], $2::uuid[], $3::int[]) WITH ORDINALITY AS t(no, id, view, i)
         ORDER BY i ON CONFLICT DO NOTHING RETURNING round_no, report_id::text`,
        values: [
          ordered.map((e) => e.round),
          ordered.map((e) => e.report.id),
          ordered.map((e) => e.report.view),
        ],
        rowMode: "array",
      });
      const fresh = new Set(inserted.rows.map((row: unknown[]) => `${row[0]}/${row[1]}`));
      const rounds: number[] = [];
      const views: number[] = [];
      const cells: number[] = [];
      const stored = new Array<number>(jobs.length).fill(0);
      for (const entry of ordered) {
        if (!fresh.has(`${entry.round}/${entry.report.id}`)) continue;
        stored[entry.job]!++;
        for (const cell of entry.report.cells) {
          rounds.push(entry.round);
          views.push(entry.report.view);
          cells.push(cell);
        }
      }
      if (cells.length > 0) {
        await client.query(
          "INSERT INTO calm_support (round_no, view, cell) SELECT * FROM unnest($1::int[], $2::int[], $3::int[])",
          [rounds, views, cells],
        );
      }
      const duplicates = new Map<number, number>();
      const results = jobs.map((job, j) => {
        const dup = job.reports.length - stored[j]!;
        if (dup > 0) duplicates.set(job.round.no, (duplicates.get(job.round.no) ?? 0) + dup);
        return { stored: stored[j]!, duplicates: dup };
      });
      for (const [no, amount] of duplicates) await addCounter(client, no, "duplicates", amount);
      return results;
    });
  }

  async countRejected(round: StoredRound, reason: string, reports: number): Promise<void> {
    await this.#write((client) => addCounter(client, round.no, `rejected:${reason}`, reports));
  }

  async counts(round: StoredRound): Promise<RoundCounts> {
    const perViewRows = await this.#read(
      "SELECT view, count(*)::float8 FROM calm_reports WHERE round_no = $1 GROUP BY view",
      [round.no],
    );
    const counterRows = await this.#read(
      "SELECT name, value::float8 FROM calm_counters WHERE round_no = $1",
      [round.no],
    );
    return countsFromRows(round, perViewRows, counterRows);
  }

  async supportCounts(round: StoredRound): Promise<SupportCounts> {
    // One snapshot for both aggregates, so reports and support rows agree under concurrent writes.
    const [reports, support] = await this.#snapshot(async (client) => [
      (
        await client.query({
          text: "SELECT view, count(*)::float8 FROM calm_reports WHERE round_no = $1 GROUP BY view",
          values: [round.no],
          rowMode: "array",
        })
      ).rows,
      (
        await client.query({
          text: "SELECT view, cell, count(*)::float8 FROM calm_support WHERE round_no = $1 GROUP BY view, cell",
          values: [round.no],
          rowMode: "array",
        })
      ).rows,
    ]);
    return supportFromRows(round.plan, reports!, support!);
  }

  async ping(): Promise<void> {
    await this.#read("SELECT 1", []);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue.idle();
    await this.#pool.end();
  }

  async #write<T>(body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    if (this.#closed) throw new StorageError("PostgreSQL storage: closed");
    try {
      return await transaction(this.#pool, body);
    } catch (error) {
      throw new StorageError(`PostgreSQL write failed: ${(error as Error).message}`);
    }
  }

  async #snapshot<T>(body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.#write(async (client) => {
      await client.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY");
      return body(client);
    });
  }

  async #read(sql: string, values: unknown[]): Promise<unknown[][]> {
    if (this.#closed) throw new StorageError("PostgreSQL storage: closed");
    try {
      return (await this.#pool.query({ text: sql, values, rowMode: "array" })).rows;
    } catch (error) {
      throw new StorageError(`PostgreSQL read failed: ${(error as Error).message}`);
    }
  }
}

async function addCounter(client: pg.PoolClient, round: number, name: string, amount: number): Promise<void> {
  await client.query(
    `INSERT INTO calm_counters VALUES ($1, $2, $3) ON CONFLICT (round_no, name)
     DO UPDATE SET value = calm_counters.value + excluded.value`,
    [round, name, amount],
  );
}
