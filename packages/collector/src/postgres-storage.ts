import { randomInt } from "node:crypto";
import type { CalmPlan } from "@calm-ldp/calm-core";
import { perObject } from "@calm-ldp/marginal-algebra";
import pg from "pg";
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
import { InvalidParameterError, RoundClosedError, StorageError } from "./errors.js";
import { GroupCommit } from "./group-commit.js";
import { migratePostgres, POSTGRES_READY_SQL, postgresVersionCheck } from "./migrations/postgres.js";
import { type SchemaMigration, SchemaVersionError } from "./migrations/runner.js";
import { PER_VIEW_SQL, SqlStorageReads } from "./sql-reads.js";
import { postgresRoundReads } from "./storage/postgres/campaign-summary.js";
import {
  cellOffsets,
  planFromColumn,
  REPORTS_MARK,
  roundFromRow,
  stateFromRow,
  supportFromRows,
} from "./storage-rows.js";
import { uuidWords } from "./uuid-set.js";

/** Any constant: the advisory lock that serialises schema creation between processes. */
const MIGRATION_LOCK = 0x63616c6d;
/** Session advisory lock key: one collector at a time rebuilds the indexes after a drop. */
const REINDEX_LOCK = 0x63616c6e;
/** The indexes a drop of closed rounds' rows empties (their pages stay until rebuilt). */
const DROPPED_INDEXES = ["calm_reports_pkey", "calm_support_round", "calm_support_views_pkey"];
/** SQLSTATEs worth retrying: serialization failure, deadlock detected. */
const RETRYABLE = new Set(["40001", "40P01"]);
const MAX_ATTEMPTS = 5;
/** Reports per group commit at most. */
const MAX_GROUP_REPORTS = 20_000;
/** SQLSTATE unique_violation: a group's plain `INSERT` met a stored id. */
const UNIQUE_VIOLATION = "23505";
/** Groups stored the careful way after one met a stored id. */
const CAREFUL_GROUPS = 16;

/** Fold a writer's support deltas into the per-view counts after this many of its groups. */
const FOLD_EVERY = 64;

/** The `DO UPDATE` of a view's counts row: add the new counts cell by cell. */
const ADD_COUNTS =
  "counts = ARRAY(SELECT a + b FROM unnest(calm_support_views.counts, excluded.counts) AS u(a, b))";

/**
 * The insert of a group's support deltas (a CTE of {@link FRESH_SQL} and of the
 * careful path) with parameters from `$p`: one `calm_support_deltas` row per
 * round, its counts the slice `$(p+1)[first:last]` of the flat counts for each
 * (round, first, last) of `$p, $(p+2), $(p+3)`; closed rounds (CTE `closed`)
 * are skipped. An append, no index: the per-view rows are added to later by
 * {@link foldDeltas}.
 */
const deltasCte = (p: number) => `deltas AS (INSERT INTO calm_support_deltas (round_no, counts)
    SELECT no, ($${p + 1}::int[])[first:last] FROM unnest($${p}::int[], $${p + 2}::int[], $${p + 3}::int[]) AS t(no, first, last)
    WHERE NOT (no = ANY ((SELECT nos FROM closed)::int[])))`;

/**
 * A group none of whose ids is stored yet, in one statement (its own
 * transaction): `$1..$3` (round, id, view) of each report, `$4` the group's
 * rounds, `$5..$8` its support deltas ({@link deltasCte}), `$9, $10`
 * duplicates (round, count) within the group. Closed rounds are skipped and
 * returned. The ids go in sorted by (round, id), so concurrent statements (also
 * of other processes) take keys in one order; a stored id fails the whole
 * statement (unique_violation). A named statement: parsed and planned once per connection.
 */
const FRESH_SQL = `WITH closed AS (
    SELECT coalesce(array_agg(round_no), '{}') AS nos FROM calm_round_state WHERE round_no = ANY($4::int[])),
  ins AS (INSERT INTO calm_reports (round_no, report_id, view)
    SELECT no, id, view FROM unnest($1::int[], $2::uuid[], $3::int[]) AS t(no, id, view)
    WHERE NOT (no = ANY ((SELECT nos FROM closed)::int[])) ORDER BY no, id),
  ${deltasCte(5)},
  dup AS (INSERT INTO calm_counters (round_no, name, value)
    SELECT no, 'duplicates', n FROM unnest($9::int[], $10::bigint[]) AS t(no, n)
    WHERE NOT (no = ANY ((SELECT nos FROM closed)::int[]))
    ON CONFLICT (round_no, name) DO UPDATE SET value = calm_counters.value + excluded.value)
  SELECT nos AS closed FROM closed`;

/**
 * Add support counts (`$2`: per view, a text literal of its cells' counts) to
 * round `$1`'s rows of views `$3` in slot `$4`, in view order (concurrent
 * writers lock the rows in one order).
 */
const ADD_VIEWS_SQL = `INSERT INTO calm_support_views (round_no, view, slot, counts)
  SELECT $1, view, $4, counts::bigint[] FROM unnest($3::int[], $2::text[]) AS t(view, counts) ORDER BY view
  ON CONFLICT (round_no, view, slot) DO UPDATE SET ${ADD_COUNTS}`;

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS calm_rounds (
     round_no INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY, round_id UUID NOT NULL UNIQUE,
     created_at TEXT NOT NULL, plan TEXT NOT NULL, request TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS calm_reports (
     round_no INTEGER NOT NULL, report_id UUID NOT NULL, view INTEGER NOT NULL,
     PRIMARY KEY (round_no, report_id))`,
  "CREATE TABLE IF NOT EXISTS calm_support (round_no INTEGER NOT NULL, view INTEGER NOT NULL, cell INTEGER NOT NULL)",
  "CREATE INDEX IF NOT EXISTS calm_support_round ON calm_support (round_no)",
  // Support counts: one row per (round, view, slot): the counts of the view's cells, which each fold
  // of deltas adds to (a slot per storage instance, so collector processes do not wait on one row).
  `CREATE TABLE IF NOT EXISTS calm_support_views (
     round_no INTEGER NOT NULL, view INTEGER NOT NULL, slot INTEGER NOT NULL, counts BIGINT[] NOT NULL,
     PRIMARY KEY (round_no, view, slot))`,
  // Support deltas: one row per (group commit, round): the counts its reports add to each cell of
  // the plan (the views' cells in plan order), folded into calm_support_views every few groups.
  "CREATE TABLE IF NOT EXISTS calm_support_deltas (round_no INTEGER NOT NULL, counts INTEGER[] NOT NULL)",
  // A fold deletes a round's deltas; until autovacuum runs, the deleted rows stay in the table's
  // pages, so without this index every fold read every page (a minute of deltas at 200,000 reports/s is
  // ~150 MB). One index entry per group commit.
  "CREATE INDEX IF NOT EXISTS calm_support_deltas_round ON calm_support_deltas (round_no)",
  // A delta row lives until the next fold: below 8,160 bytes (2,000 cells) PostgreSQL keeps it as it
  // is instead of compressing it (pglz took ~9% of the server's CPU with 1,120 cells at the 2 kB default).
  `DO $$ BEGIN
     IF NOT EXISTS (SELECT 1 FROM pg_class WHERE oid = 'calm_support_deltas'::regclass
                    AND reloptions @> ARRAY['toast_tuple_target=8160']) THEN
       ALTER TABLE calm_support_deltas SET (toast_tuple_target = 8160);
     END IF;
   END $$`,
  `CREATE TABLE IF NOT EXISTS calm_counters (
     round_no INTEGER NOT NULL, name TEXT NOT NULL, value BIGINT NOT NULL, PRIMARY KEY (round_no, name))`,
  `CREATE TABLE IF NOT EXISTS calm_round_state (
     round_no INTEGER PRIMARY KEY, closed_at TEXT NOT NULL, ids_dropped_at TEXT)`,
  `CREATE TABLE IF NOT EXISTS calm_closed_counts (
     round_no INTEGER NOT NULL, view INTEGER NOT NULL, cell INTEGER NOT NULL, count BIGINT NOT NULL,
     PRIMARY KEY (round_no, view, cell))`,
];

/**
 * Support counts per (view, cell) of a round (`$1`): stored rows, per-view
 * counts, deltas not folded yet (`$2, $3`: the view and cell of each flat cell)
 * and dropped rows' counts.
 */
const SUPPORT_SQL = `SELECT view, cell, sum(n)::float8 FROM (
    SELECT view, cell, count(*) AS n FROM calm_support WHERE round_no = $1 GROUP BY view, cell
    UNION ALL SELECT view, (u.i - 1)::int, u.n FROM calm_support_views, unnest(counts) WITH ORDINALITY AS u(n, i)
      WHERE round_no = $1
    UNION ALL SELECT m.view, m.cell, d.n FROM (
        SELECT u.i, sum(u.n) AS n FROM calm_support_deltas, unnest(counts) WITH ORDINALITY AS u(n, i)
        WHERE round_no = $1 GROUP BY u.i) AS d
      JOIN unnest($2::int[], $3::int[]) WITH ORDINALITY AS m(view, cell, i) ON m.i = d.i
    UNION ALL SELECT view, cell, count FROM calm_closed_counts WHERE round_no = $1 AND cell <> ${REPORTS_MARK}
  ) AS t GROUP BY view, cell`;
/**
 * Move a round's rows into its closed counts (`$1` the round): each statement
 * deletes rows and adds exactly the deleted ones to the counts, so a batch that
 * commits meanwhile stays counted once (as rows, until the next sweep).
 */
const COMPACT_SQL = [
  `WITH gone AS (DELETE FROM calm_reports WHERE round_no = $1 RETURNING view)
   INSERT INTO calm_closed_counts SELECT $1, view, ${REPORTS_MARK}, count(*) FROM gone GROUP BY view
   ON CONFLICT (round_no, view, cell) DO UPDATE SET count = calm_closed_counts.count + excluded.count`,
  `WITH gone AS (DELETE FROM calm_support WHERE round_no = $1 RETURNING view, cell)
   INSERT INTO calm_closed_counts SELECT $1, view, cell, count(*) FROM gone GROUP BY view, cell
   ON CONFLICT (round_no, view, cell) DO UPDATE SET count = calm_closed_counts.count + excluded.count`,
  `WITH gone AS (DELETE FROM calm_support_views WHERE round_no = $1 RETURNING view, counts)
   INSERT INTO calm_closed_counts
   SELECT $1, view, (u.i - 1)::int, sum(u.n) FROM gone, unnest(gone.counts) WITH ORDINALITY AS u(n, i)
   GROUP BY view, u.i HAVING sum(u.n) <> 0
   ON CONFLICT (round_no, view, cell) DO UPDATE SET count = calm_closed_counts.count + excluded.count`,
];

/** Options of {@link openPostgresStorage}. */
export interface PostgresStorageOptions {
  /** Connections in the pool (default 8). */
  readonly poolSize?: number;
  /** Time limit of opening one connection, in ms (default 5000); then the call fails with `StorageError`. */
  readonly connectTimeoutMs?: number;
  /**
   * Group commits in flight at once, each on its own connection (default 2: one
   * group's statement runs while the other's commit waits for the WAL flush;
   * measured in bench/HISTORY.md). An integer from 1 to `poolSize`.
   */
  readonly writers?: number;
}

/**
 * PostgreSQL as collector storage, shared by any number of collector processes:
 * the schema is created once under an advisory lock; batches are stored with
 * group commit (`GroupCommit`, `writers` queues: the batches that arrive while a
 * writer's transaction runs share its next one), one transaction per group (the
 * primary key (round, report id) decides which reports are new, taken in id
 * order so concurrent transactions, also of other processes, lock in one order;
 * the support is added to per-view count arrays), retried on
 * deadlock/serialization failure, committed with the server's default
 * `synchronous_commit = on` before any batch of the group resolves. Counting is
 * `GROUP BY view` / `GROUP BY view, cell` in SQL. `InvalidParameterError` for
 * a `writers` that is not an integer from 1 to the pool size.
 */
export async function openPostgresStorage(
  url: string,
  options: PostgresStorageOptions = {},
): Promise<CollectorStorage> {
  const poolSize = options.poolSize ?? 8;
  const writers = options.writers ?? Math.min(2, poolSize);
  if (!Number.isInteger(writers) || writers < 1 || writers > poolSize)
    throw new InvalidParameterError(
      `openPostgresStorage: writers must be an integer from 1 to the pool size ${poolSize} (got ${writers})`,
    );
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // While the server is away, fail fast (HTTP 503) rather than queue requests.
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    keepAlive: true,
  });
  pool.on("error", () => undefined); // an idle client lost its connection; the pool drops it
  let schemaMigration: SchemaMigration;
  try {
    schemaMigration = await transaction(pool, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
      return migratePostgres(client, SCHEMA);
    });
  } catch (error) {
    await pool.end().catch(() => undefined);
    if (error instanceof SchemaVersionError) throw error;
    throw new StorageError(`openPostgresStorage: cannot prepare the database: ${(error as Error).message}`);
  }
  const storage = new PostgresStorage(pool, writers);
  storage.schemaMigration = schemaMigration;
  return storage;
}

/**
 * Run `run` on a pooled connection, retried (up to MAX_ATTEMPTS) on deadlock or
 * serialization failure; other errors reject as they are. A connection that
 * fails under us (the server restarted, the socket dropped: the client then
 * emits `error`, which would crash the process with no listener, since the pool
 * listens only while a client is idle) is caught here, destroyed rather than
 * returned to the pool, and the call rejects; the pool opens fresh connections
 * for later calls. With `rollback`, a failed attempt rolls back first.
 */
async function onPooledConnection<T>(
  pool: pg.Pool,
  run: (client: pg.PoolClient) => Promise<T>,
  rollback: boolean,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken = error;
    };
    client.on("error", onError);
    try {
      return await run(client);
    } catch (error) {
      if (rollback && broken === undefined)
        await client.query("ROLLBACK").catch((failed: Error) => {
          broken = failed;
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

/** Run `body` in a transaction (BEGIN ... COMMIT), as {@link onPooledConnection} with rollback. */
function transaction<T>(pool: pg.Pool, body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return onPooledConnection(
    pool,
    async (client) => {
      await client.query("BEGIN");
      const result = await body(client);
      await client.query("COMMIT");
      return result;
    },
    true,
  );
}

type StoreJob = { round: StoredRound; reports: readonly AcceptedReport[] };

class PostgresStorage extends SqlStorageReads implements CollectorStorage {
  readonly backend = "postgres";
  /** What opening the database did to its schema (see migrations/postgres.ts). */
  schemaMigration: SchemaMigration | undefined;
  readonly #pool: pg.Pool;
  /** Group-commit queues, each with its own transaction at a time. */
  readonly #writers: { queue: GroupCommit<StoreJob, StoreResult | RoundClosedError>; waiting: number }[];
  #closed = false;
  /** Rows were dropped and the indexes are not rebuilt yet (a failed rebuild is retried at the next sweep). */
  #reindexDue = false;
  /** Groups left to store the careful way (`#storeChecked`) since one met a stored id. */
  #carefulGroups = 0;
  /** This instance's row of each view's support counts: random, so other processes have their own. */
  readonly #slot = randomInt(0, 2 ** 31 - 1);
  /** Rounds this instance wrote support deltas of since its last fold, and how many groups. */
  readonly #unfolded = new Map<number, StoredRound>();
  #groupsSinceFold = 0;
  /** The fold running now (one at a time per instance: they share the slot). */
  #folding: Promise<void> | undefined;

  constructor(pool: pg.Pool, writers: number) {
    super();
    this.#pool = pool;
    this.#writers = Array.from({ length: writers }, () => ({
      queue: new GroupCommit<StoreJob, StoreResult | RoundClosedError>(
        (jobs) => this.#storeGroup(jobs),
        (job) => job.reports.length,
        MAX_GROUP_REPORTS,
      ),
      waiting: 0,
    }));
  }

  createRound(round: Omit<StoredRound, "no">): Promise<StoredRound> {
    return this.#write(async (client) => {
      // A round whose id is stored already (another collector opened the same campaign round,
      // see campaigns.ts) is not stored again: the stored one is the round (waits for a racing
      // insert to commit, then reads it).
      const result = await client.query(
        `INSERT INTO calm_rounds (round_id, created_at, plan, request) VALUES ($1, $2, $3, $4)
         ON CONFLICT (round_id) DO NOTHING RETURNING round_no`,
        [round.id, round.createdAt, JSON.stringify(round.plan), JSON.stringify(round.request)],
      );
      if (result.rows.length > 0) return { ...round, no: Number(result.rows[0].round_no) };
      const stored = await client.query({
        text: "SELECT round_no, round_id::text, created_at, plan, request FROM calm_rounds WHERE round_id = $1",
        values: [round.id],
        rowMode: "array",
      });
      return roundFromRow(stored.rows[0]);
    });
  }

  async storeReports(round: StoredRound, reports: readonly AcceptedReport[]): Promise<StoreResult> {
    if (this.#closed) throw new StorageError("PostgreSQL storage: closed");
    // The writer with the fewest batches waiting (an idle one starts a group at once).
    let writer = this.#writers[0]!;
    for (const other of this.#writers) if (other.waiting < writer.waiting) writer = other;
    writer.waiting++;
    let result: StoreResult | RoundClosedError;
    try {
      result = await writer.queue.submit({ round, reports });
    } finally {
      writer.waiting--;
    }
    if (result instanceof RoundClosedError) throw result;
    return result;
  }

  /**
   * One group of batches (group commit), de-duplicated in submission order (the
   * first occurrence of a (round, id) wins; later ones in the group are
   * duplicates). Usually none of its ids is stored yet (duplicates come from
   * retries after a lost answer), so the group goes in with one statement in its
   * own transaction ({@link FRESH_SQL}, one round trip, one WAL flush): plain
   * `INSERT` of the ids (the key refuses any stored one: the statement fails with
   * unique_violation and nothing of it stays), the support counts added per
   * (round, view, cell), the group's own duplicates counted, closed rounds
   * skipped (their batches get `RoundClosedError`). If it fails on the key, the
   * group runs again the careful way ({@link #storeChecked}), and so do the next
   * {@link CAREFUL_GROUPS} groups (a client retrying sends more). Resolves (every
   * batch of the group) after COMMIT. O(reports x cells) work in JavaScript.
   */
  async #storeGroup(jobs: StoreJob[]): Promise<(StoreResult | RoundClosedError)[]> {
    const entries: Entry[] = [];
    const seen = new Map<number, Set<string>>();
    const kept = new Array<number>(jobs.length).fill(0);
    jobs.forEach((job, j) => {
      let ids = seen.get(job.round.no);
      if (ids === undefined) seen.set(job.round.no, (ids = new Set()));
      for (const report of job.reports) {
        if (ids.has(report.id)) continue;
        ids.add(report.id);
        entries.push({ job: j, round: job.round.no, report });
        kept[j]!++;
      }
    });
    if (this.#carefulGroups > 0) {
      this.#carefulGroups--;
      return this.#storeChecked(jobs, entries);
    }
    const duplicates = new Map<number, number>();
    jobs.forEach((job, j) => {
      const dup = job.reports.length - kept[j]!;
      if (dup > 0) duplicates.set(job.round.no, (duplicates.get(job.round.no) ?? 0) + dup);
    });
    const deltas = supportDeltas(jobs, entries);
    const values = [
      binaryInt4Array(entries, (e) => e.round),
      binaryUuidArray(entries),
      binaryInt4Array(entries, (e) => e.report.view),
      intArray([...seen.keys()]),
      intArray(deltas.rounds),
      deltas.counts,
      intArray(deltas.first),
      intArray(deltas.last),
      intArray([...duplicates.keys()]),
      intArray([...duplicates.values()]),
    ];
    let closedNos: number[];
    try {
      closedNos = (await statement(this.#pool, { name: "calm_fresh_group", text: FRESH_SQL, values })).rows[0]
        .closed as number[];
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) {
        this.#carefulGroups = CAREFUL_GROUPS;
        return this.#storeChecked(jobs, entries);
      }
      throw new StorageError(`PostgreSQL write failed: ${(error as Error).message}`);
    }
    const closed = new Set(closedNos.map(Number));
    const results = jobs.map((job, j): StoreResult | RoundClosedError =>
      closed.has(job.round.no)
        ? new RoundClosedError(job.round.id)
        : { stored: kept[j]!, duplicates: job.reports.length - kept[j]! },
    );
    this.#wroteDeltas(jobs, results);
    return results;
  }

  /**
   * A group some of whose ids may be stored already, in one transaction: its
   * entries sorted by (round, id) (concurrent transactions lock keys in one
   * order) go in with `INSERT ... ON CONFLICT DO NOTHING RETURNING`, in one
   * statement that also skips closed rounds; the support counts of the new ones
   * follow; duplicates are counted per round. 3 + rounds statements, one WAL flush.
   */
  async #storeChecked(jobs: StoreJob[], entries: Entry[]): Promise<(StoreResult | RoundClosedError)[]> {
    const ordered = [...entries].sort((a, b) =>
      a.round !== b.round
        ? a.round - b.round
        : a.report.id < b.report.id
          ? -1
          : a.report.id > b.report.id
            ? 1
            : 0,
    );
    const roundNos = [...new Set(jobs.map((job) => job.round.no))];
    const results = await this.#write(async (client) => {
      // One statement finds the closed rounds and inserts the new ids of the open ones.
      const inserted = await client.query(
        `WITH closed AS (
           SELECT coalesce(array_agg(round_no), '{}') AS nos FROM calm_round_state WHERE round_no = ANY($4::int[])),
         ins AS (INSERT INTO calm_reports (round_no, report_id, view)
           SELECT no, id, view FROM unnest($1::int[], $2::uuid[], $3::int[]) WITH ORDINALITY AS t(no, id, view, i)
           WHERE NOT (no = ANY ((SELECT nos FROM closed)::int[])) ORDER BY i
           ON CONFLICT DO NOTHING RETURNING round_no, report_id::text AS id)
         SELECT (SELECT nos FROM closed) AS closed, ARRAY(SELECT round_no || '/' || id FROM ins) AS keys`,
        [
          ordered.map((e) => e.round),
          ordered.map((e) => e.report.id),
          ordered.map((e) => e.report.view),
          roundNos,
        ],
      );
      const answer = inserted.rows[0] as { closed: number[]; keys: string[] };
      const closed = new Set(answer.closed.map(Number));
      const fresh = new Set(answer.keys);
      const stored = new Array<number>(jobs.length).fill(0);
      const storedEntries = ordered.filter((entry) => fresh.has(`${entry.round}/${entry.report.id}`));
      for (const entry of storedEntries) stored[entry.job]!++;
      const deltas = supportDeltas(jobs, storedEntries);
      if (deltas.rounds.length > 0)
        await client.query(`WITH closed AS (SELECT '{}'::int[] AS nos), ${deltasCte(1)} SELECT 1`, [
          intArray(deltas.rounds),
          deltas.counts,
          intArray(deltas.first),
          intArray(deltas.last),
        ]);
      const duplicates = new Map<number, number>();
      const results = jobs.map((job, j): StoreResult | RoundClosedError => {
        if (closed.has(job.round.no)) return new RoundClosedError(job.round.id);
        const dup = job.reports.length - stored[j]!;
        if (dup > 0) duplicates.set(job.round.no, (duplicates.get(job.round.no) ?? 0) + dup);
        return { stored: stored[j]!, duplicates: dup };
      });
      for (const [no, amount] of duplicates) await addCounter(client, no, "duplicates", amount);
      return results;
    });
    this.#wroteDeltas(jobs, results);
    return results;
  }

  /**
   * After a group committed (`results`, one per job): note the open rounds it
   * wrote support deltas of, and every {@link FOLD_EVERY} groups start a fold of
   * them (in the background, one at a time; a failed fold leaves its deltas,
   * which every read counts, to the next one).
   */
  #wroteDeltas(jobs: readonly StoreJob[], results: readonly (StoreResult | RoundClosedError)[]): void {
    jobs.forEach((job, j) => {
      if (!(results[j] instanceof RoundClosedError)) this.#unfolded.set(job.round.no, job.round);
    });
    if (++this.#groupsSinceFold >= FOLD_EVERY && this.#folding === undefined)
      this.#folding = this.#fold()
        .catch(() => undefined)
        .finally(() => {
          this.#folding = undefined;
        });
  }

  /**
   * Fold the support deltas of the rounds this instance wrote deltas of into
   * their per-view counts ({@link foldDeltas}, one transaction per round, slot of this
   * instance). Rejects on the first failure (the rounds not folded stay noted).
   */
  async #fold(): Promise<void> {
    this.#groupsSinceFold = 0;
    for (const round of [...this.#unfolded.values()]) {
      this.#unfolded.delete(round.no);
      try {
        await transaction(this.#pool, (client) => foldDeltas(client, round.no, round.plan, this.#slot));
      } catch (error) {
        this.#unfolded.set(round.no, round);
        throw error;
      }
    }
  }

  async countRejected(round: StoredRound, reason: string, reports: number): Promise<void> {
    await this.#write((client) => addCounter(client, round.no, `rejected:${reason}`, reports));
  }

  closeRound(round: StoredRound, at: Date): Promise<RoundState> {
    return this.#write(async (client) => {
      const result = await client.query({
        text: `WITH ins AS (INSERT INTO calm_round_state VALUES ($1, $2, NULL) ON CONFLICT (round_no) DO NOTHING
                 RETURNING closed_at, ids_dropped_at)
               SELECT closed_at, ids_dropped_at FROM ins
               UNION ALL SELECT closed_at, ids_dropped_at FROM calm_round_state WHERE round_no = $1`,
        values: [round.no, at.toISOString()],
        rowMode: "array",
      });
      if (result.rows.length > 0) return stateFromRow(result.rows[0]);
      // Another transaction closed it meanwhile (after this statement's snapshot): read its row.
      const again = await client.query({
        text: "SELECT closed_at, ids_dropped_at FROM calm_round_state WHERE round_no = $1",
        values: [round.no],
        rowMode: "array",
      });
      return stateFromRow(again.rows[0]);
    });
  }

  async dropClosedIds(closedBefore: Date, at: Date): Promise<string[]> {
    // Rounds closed long enough that still hold rows (a batch in flight at closing, or a fold
    // of its deltas, may add some later).
    const due = await this.read(
      `SELECT s.round_no, r.round_id::text, r.plan FROM calm_round_state s JOIN calm_rounds r USING (round_no)
       WHERE s.closed_at <= $1
         AND (s.ids_dropped_at IS NULL OR EXISTS (SELECT 1 FROM calm_reports c WHERE c.round_no = s.round_no)
           OR EXISTS (SELECT 1 FROM calm_support_deltas d WHERE d.round_no = s.round_no)
           OR EXISTS (SELECT 1 FROM calm_support_views v WHERE v.round_no = s.round_no))
       ORDER BY s.round_no`,
      [closedBefore.toISOString()],
    );
    for (const [no, , plan] of due) {
      const roundPlan = planFromColumn(plan);
      await this.#write(async (client) => {
        // The deltas into the per-view counts first, which the next statements move to the closed counts.
        await foldDeltas(client, Number(no), roundPlan, this.#slot);
        for (const statement of COMPACT_SQL) await client.query(statement, [no]);
        await client.query(
          "UPDATE calm_round_state SET ids_dropped_at = coalesce(ids_dropped_at, $2) WHERE round_no = $1",
          [no, at.toISOString()],
        );
      });
      this.#reindexDue = true;
    }
    if (this.#reindexDue) await this.#reindex();
    return due.map((row) => String(row[1]));
  }

  /**
   * After a drop: `REINDEX INDEX CONCURRENTLY` of the report key and the support
   * index, whose pages a `DELETE` (and `VACUUM`) leaves at their size (measured:
   * 10^6 reports dropped, 80.9 MB left after `VACUUM`, see the README). Writes go on
   * meanwhile (it takes no lock that blocks `INSERT`); the cost is a rebuild over
   * the rows still stored, O(n log n) for the n reports of the open rounds, and the
   * old and new index side by side until it ends. One collector at a time (session
   * advisory lock; another one skips it); leftovers of a rebuild cut short (invalid
   * `..._ccnew` indexes, which writes would keep updating) are dropped first.
   */
  async #reindex(): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw new StorageError(
        `PostgreSQL: rebuilding the indexes after a drop failed: ${(error as Error).message}`,
      );
    }
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken = error;
    };
    client.on("error", onError);
    try {
      const locked = await client.query({
        text: "SELECT pg_try_advisory_lock($1)",
        values: [REINDEX_LOCK],
        rowMode: "array",
      });
      if (locked.rows[0]![0] !== true) {
        this.#reindexDue = false; // another collector is rebuilding them now
        return;
      }
      try {
        const leftovers = await client.query({
          text: `SELECT i.indexrelid::regclass::text FROM pg_index i
                 WHERE NOT i.indisvalid
                   AND i.indrelid IN ('calm_reports'::regclass, 'calm_support'::regclass, 'calm_support_views'::regclass)`,
          rowMode: "array",
        });
        for (const [name] of leftovers.rows) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
        for (const index of DROPPED_INDEXES) await client.query(`REINDEX INDEX CONCURRENTLY ${index}`);
        this.#reindexDue = false;
      } finally {
        await client.query({ text: "SELECT pg_advisory_unlock($1)", values: [REINDEX_LOCK] });
      }
    } catch (error) {
      throw new StorageError(
        `PostgreSQL: rebuilding the indexes after a drop failed: ${(error as Error).message}`,
      );
    } finally {
      client.removeListener("error", onError);
      client.release(broken);
    }
  }

  async supportCounts(round: StoredRound): Promise<SupportCounts> {
    // One snapshot for both aggregates, so reports and support rows agree under concurrent writes.
    const layout = cellLayout(round.plan);
    const [reports, support] = await this.#snapshot(async (client) => [
      (await client.query({ text: PER_VIEW_SQL, values: [round.no], rowMode: "array" })).rows,
      (
        await client.query({
          text: SUPPORT_SQL,
          values: [round.no, layout.viewOf, layout.cellOf],
          rowMode: "array",
        })
      ).rows,
    ]);
    return supportFromRows(round.plan, reports!, support!);
  }

  /** Reads of many rounds in a fixed number of queries (storage/postgres/campaign-summary.ts). */
  roundReads(): RoundReads {
    return postgresRoundReads({
      read: (sql, values) => this.read(sql, values),
      snapshot: (body) => this.#snapshot(body),
    });
  }

  observeGroupCommits(listener: GroupCommitListener): void {
    for (const writer of this.#writers) writer.queue.observe(listener);
  }

  /** Readiness: one write (the version row's `checked_at`) that reads the schema version back. */
  async ready(): Promise<SchemaVersionCheck> {
    return postgresVersionCheck(await this.read(POSTGRES_READY_SQL, [new Date().toISOString()]));
  }

  async ping(): Promise<void> {
    await this.read("SELECT 1", []);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const writer of this.#writers) await writer.queue.idle();
    await this.#folding;
    await this.#fold().catch(() => undefined); // what is left now rather than at the next read or drop
    await this.#pool.end();
  }

  async #write<T>(body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    if (this.#closed) throw new StorageError("PostgreSQL storage: closed");
    try {
      return await transaction(this.#pool, body);
    } catch (error) {
      if (error instanceof RoundClosedError) throw error;
      throw new StorageError(`PostgreSQL write failed: ${(error as Error).message}`);
    }
  }

  async #snapshot<T>(body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.#write(async (client) => {
      await client.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY");
      return body(client);
    });
  }

  protected override async read(sql: string, values: unknown[]): Promise<unknown[][]> {
    if (this.#closed) throw new StorageError("PostgreSQL storage: closed");
    try {
      return (await this.#pool.query({ text: sql, values, rowMode: "array" })).rows;
    } catch (error) {
      throw new StorageError(`PostgreSQL read failed: ${(error as Error).message}`);
    }
  }
}

/** Column parsers that keep every value as the text the server sent. */
const TEXT_VALUES = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

/**
 * Fold round `no`'s support deltas into its per-view counts in `slot`, inside
 * the caller's transaction: `DELETE ... RETURNING` the deltas (`int4[]` as
 * text: the driver decodes binary results as UTF-8 text, which mangles them),
 * sum them here, add the sums to the views' rows ({@link ADD_VIEWS_SQL}).
 * Exactly the deleted deltas are added, once: a delta another transaction
 * deletes meanwhile is not returned here, and a rollback keeps both as they
 * were. O(deltas x cells of the plan) in JavaScript, three statements. Exported
 * for the tests (the package exports only `openPostgresStorage`).
 */
export async function foldDeltas(
  client: pg.PoolClient,
  no: number,
  plan: CalmPlan,
  slot: number,
): Promise<void> {
  const layout = cellLayout(plan);
  // The round's deltas through the index, not a bitmap scan: every fold deletes what it reads, and
  // until autovacuum runs those rows stay in the table and in the index under the same round_no.
  // An index scan marks the entries of rows dead to every transaction as such and later scans skip
  // them; a bitmap scan would visit every page of the round's deleted deltas at every fold.
  await client.query("SET LOCAL enable_bitmapscan = off");
  const gone = await client.query({
    text: "DELETE FROM calm_support_deltas WHERE round_no = $1 RETURNING counts",
    values: [no],
    rowMode: "array",
    types: TEXT_VALUES,
  });
  if (gone.rows.length === 0) return;
  const sums = new Float64Array(layout.total);
  for (const [counts] of gone.rows) addIntArrayText(counts as string, sums);
  const views: number[] = [];
  const literals: string[] = [];
  plan.views.forEach((view, v) => {
    const cells = sums.subarray(layout.offsets[v]!, layout.offsets[v]! + view.cells);
    if (cells.every((x) => x === 0)) return;
    views.push(v);
    literals.push(`"{${cells.join(",")}}"`);
  });
  if (views.length > 0)
    await client.query(ADD_VIEWS_SQL, [no, `{${literals.join(",")}}`, intArray(views), slot]);
}

/**
 * Add the elements of a one-dimensional array of non-negative integers in
 * PostgreSQL's text form (`{3,0,12}`) to `sums` element by element;
 * `StorageError` if it is not that or its length is not `sums.length`. O(text length).
 */
function addIntArrayText(text: string, sums: Float64Array): void {
  const fail = () => new StorageError(`a stored support delta is not an int4[] of ${sums.length} counts`);
  const end = text.length - 1;
  if (text.charCodeAt(0) !== 123 || text.charCodeAt(end) !== 125) throw fail(); // { and }
  let i = 0;
  let value = 0;
  let digits = 0;
  for (let at = 1; at <= end; at++) {
    const c = text.charCodeAt(at);
    if (c >= 48 && c <= 57) {
      value = value * 10 + (c - 48);
      digits++;
    } else if ((c === 44 || at === end) && digits > 0 && i < sums.length) {
      sums[i++]! += value; // , or the closing }
      value = 0;
      digits = 0;
    } else throw fail();
  }
  if (i !== sums.length) throw fail();
}

async function addCounter(client: pg.PoolClient, round: number, name: string, amount: number): Promise<void> {
  await client.query(
    `INSERT INTO calm_counters VALUES ($1, $2, $3) ON CONFLICT (round_no, name)
     DO UPDATE SET value = calm_counters.value + excluded.value`,
    [round, name, amount],
  );
}

/** One report of a group: its batch (index in the group) and round. */
type Entry = { job: number; round: number; report: AcceptedReport };

/**
 * Where each cell of a plan sits in a support delta (the views' cells in plan
 * order, {@link cellOffsets}): `offsets[v]` the first flat index of view v,
 * `total` the cells of all views, and as PostgreSQL `int[]` literals the view
 * (`viewOf`) and the cell within it (`cellOf`) of each flat index. Cached per
 * plan. O(total cells).
 */
interface CellLayout {
  readonly offsets: Int32Array;
  readonly total: number;
  readonly viewOf: string;
  readonly cellOf: string;
}
const cellLayout = perObject((plan: CalmPlan): CellLayout => {
  const offsets = cellOffsets(plan);
  const viewOf: number[] = [];
  const cellOf: number[] = [];
  plan.views.forEach((view, v) => {
    for (let c = 0; c < view.cells; c++) {
      viewOf.push(v);
      cellOf.push(c);
    }
  });
  return { offsets, total: offsets[plan.views.length]!, viewOf: intArray(viewOf), cellOf: intArray(cellOf) };
});

/**
 * The support deltas that `entries` (of `jobs`' rounds) add, one per round with
 * entries, in round order: `counts` one binary `int4[]` of the rounds' flat
 * counts ({@link cellLayout}) one after the other, round `rounds[i]`'s at the
 * 1-based slice `first[i]..last[i]`. O(entries x cells + cells of the plans).
 */
function supportDeltas(
  jobs: readonly StoreJob[],
  entries: readonly Entry[],
): { rounds: number[]; counts: Buffer; first: number[]; last: number[] } {
  type Tally = { layout: CellLayout; counts: Int32Array };
  const tallies = new Map<number, Tally>();
  let last: { no: number; tally: Tally } | undefined;
  for (const entry of entries) {
    let tally = last?.no === entry.round ? last.tally : tallies.get(entry.round);
    if (tally === undefined) {
      const layout = cellLayout(jobs[entry.job]!.round.plan);
      tally = { layout, counts: new Int32Array(layout.total) };
      tallies.set(entry.round, tally);
    }
    last = { no: entry.round, tally };
    const offset = tally.layout.offsets[entry.report.view]!;
    for (const cell of entry.report.cells) tally.counts[offset + cell]!++;
  }
  const ordered = [...tallies].sort((a, b) => a[0] - b[0]);
  const rounds: number[] = [];
  const first: number[] = [];
  const lasts: number[] = [];
  let total = 0;
  for (const [no, tally] of ordered) {
    rounds.push(no);
    first.push(total + 1);
    total += tally.counts.length;
    lasts.push(total);
  }
  const buffer = binaryArrayBuffer(total, INT4_OID, 4);
  const data = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength); // ~10x Buffer.writeInt32BE
  let at = 20;
  for (const [, tally] of ordered) {
    const counts = tally.counts;
    for (let i = 0; i < counts.length; i++, at += 8) {
      data.setInt32(at, 4);
      data.setInt32(at + 4, counts[i]!);
    }
  }
  return { rounds, counts: buffer, first, last: lasts };
}

/** Array element type oids of PostgreSQL's binary array format. */
const INT4_OID = 23;
const UUID_OID = 2950;

/**
 * The header of a one-dimensional array of `n` elements of type `oid` in
 * PostgreSQL's binary format (what `array_recv` reads), in a buffer of
 * `20 + n * (4 + size)` bytes whose element slots follow at offset 20.
 */
function binaryArrayBuffer(n: number, oid: number, size: number): Buffer {
  const buffer = Buffer.allocUnsafe(n === 0 ? 12 : 20 + n * (4 + size));
  buffer.writeInt32BE(n === 0 ? 0 : 1, 0); // dimensions
  buffer.writeInt32BE(0, 4); // no nulls
  buffer.writeInt32BE(oid, 8);
  if (n > 0) {
    buffer.writeInt32BE(n, 12);
    buffer.writeInt32BE(1, 16); // lower bound
  }
  return buffer;
}

/** `int4[]` of `value(entry)` in binary format (a Buffer parameter: the driver sends it as is). O(entries). */
function binaryInt4Array(entries: readonly Entry[], value: (entry: Entry) => number): Buffer {
  const buffer = binaryArrayBuffer(entries.length, INT4_OID, 4);
  const data = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let at = 20;
  for (const entry of entries) {
    data.setInt32(at, 4);
    data.setInt32(at + 4, value(entry));
    at += 8;
  }
  return buffer;
}

/**
 * `uuid[]` of the entries' report ids in binary format, 20 bytes per id (the
 * text literal is 37 bytes per id and the server parses each one): each id's
 * four words ({@link uuidWords}) big-endian. The ids are lower-case canonical
 * UUIDs (checked by `decodeReport`). O(entries).
 */
function binaryUuidArray(entries: readonly Entry[]): Buffer {
  const buffer = binaryArrayBuffer(entries.length, UUID_OID, 16);
  const data = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const words = new Uint32Array(4);
  let at = 20;
  for (const entry of entries) {
    uuidWords(entry.report.id, words, 0);
    data.setInt32(at, 16); // the element's length
    for (let w = 0; w < 4; w++) data.setUint32(at + 4 + 4 * w, words[w]!);
    at += 20;
  }
  return buffer;
}

/** A PostgreSQL array literal of integers (sent as text: cheaper than the driver's per-element conversion). */
function intArray(values: readonly number[]): string {
  return `{${values.join(",")}}`;
}

/**
 * Run one statement as its own transaction (autocommit: it commits, with the
 * server's `synchronous_commit`, before the answer arrives), as
 * {@link onPooledConnection}; other errors reject as they are (the caller wraps them).
 */
function statement(pool: pg.Pool, query: pg.QueryConfig): Promise<pg.QueryResult> {
  return onPooledConnection(pool, (client) => client.query(query), false);
}
