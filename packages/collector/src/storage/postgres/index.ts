import { randomInt } from "node:crypto";
import pg from "pg";
import type * as api from "../../api.js";
import { InvalidParameterError } from "../../errors.js";
import type { SchemaMigration } from "../../migrations/runner.js";
import { droppedCounters } from "../../storage-rows.js";
import { SqlStorageReads } from "../shared/sql-reads.js";
import { postgresRoundReads } from "./campaign-summary.js";
import { PostgresDb } from "./connection.js";
import { IdDropper } from "./drop.js";
import { DeltaFolder } from "./fold.js";
import { PostgresIngest } from "./ingest.js";
import { readyCheck, supportCounts } from "./reads.js";
import { addCounter, closeRound, createRound } from "./rounds.js";
import { prepareSchema } from "./schema.js";

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
): Promise<api.CollectorStorage> {
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
  const schemaMigration = await prepareSchema(pool);
  return new PostgresStorage(pool, writers, schemaMigration);
}

/**
 * The PostgreSQL storage: the shared SQL reads, and each other method handed
 * to the file of its concern (ingest.ts: group commit; fold.ts: support deltas
 * into per-view counts; rounds.ts: creating and closing rounds, counters;
 * drop.ts: dropping closed rounds' ids; reads.ts: support counts, readiness).
 */
class PostgresStorage extends SqlStorageReads implements api.CollectorStorage {
  readonly backend = "postgres";
  readonly #db: PostgresDb;
  readonly #folder: DeltaFolder;
  readonly #ingest: PostgresIngest;
  readonly #dropper: IdDropper;

  /** `schemaMigration`: what opening the database did to its schema (see migrations/postgres.ts). */
  constructor(
    pool: pg.Pool,
    writers: number,
    readonly schemaMigration: SchemaMigration,
  ) {
    super();
    this.#db = new PostgresDb(pool);
    // This instance's row of each view's support counts: random, so other processes have their own.
    const slot = randomInt(0, 2 ** 31 - 1);
    this.#folder = new DeltaFolder(pool, slot);
    this.#ingest = new PostgresIngest(this.#db, this.#folder, writers);
    this.#dropper = new IdDropper(this.#db, slot);
  }

  createRound(round: Omit<api.StoredRound, "no">): Promise<api.StoredRound> {
    return createRound(this.#db, round);
  }

  storeReports(round: api.StoredRound, reports: readonly api.AcceptedReport[]): Promise<api.StoreResult> {
    return this.#ingest.storeReports(round, reports);
  }

  /** The batch and its dropped reports' counts in one group commit, each dropped id counted once (ingest.ts). */
  storeReportsAndDrops(
    round: api.StoredRound,
    reports: readonly api.AcceptedReport[],
    dropped: api.DroppedBatch,
  ): Promise<api.StoreResult> {
    return this.#ingest.storeReports(round, reports, dropped);
  }

  async countRejected(round: api.StoredRound, reason: string, reports: number): Promise<void> {
    await this.#db.write((client) => addCounter(client, round.no, `rejected:${reason}`, reports));
  }

  /** One transaction adding each view's counter (`dropped:<reason>:<view>`). */
  async countDropped(round: api.StoredRound, reason: string, perView: readonly number[]): Promise<void> {
    await this.#db.write(async (client) => {
      for (const { name, amount } of droppedCounters(reason, perView))
        await addCounter(client, round.no, name, amount);
    });
  }

  closeRound(round: api.StoredRound, at: Date): Promise<api.RoundState> {
    return closeRound(this.#db, round, at);
  }

  dropClosedIds(closedBefore: Date, at: Date): Promise<string[]> {
    return this.#dropper.dropClosedIds(closedBefore, at);
  }

  supportCounts(round: api.StoredRound): Promise<api.SupportCounts> {
    return supportCounts(this.#db, round);
  }

  /** Reads of many rounds in a fixed number of queries (campaign-summary.ts). */
  roundReads(): api.RoundReads {
    const db = this.#db;
    return postgresRoundReads({
      read: (sql, values) => db.read(sql, values),
      snapshot: (body) => db.snapshot(body),
    });
  }

  observeGroupCommits(listener: api.GroupCommitListener): void {
    this.#ingest.observe(listener);
  }

  /** Readiness: one write (the version row's `checked_at`) that reads the schema version back. */
  ready(): Promise<api.SchemaVersionCheck> {
    return readyCheck(this.#db);
  }

  async ping(): Promise<void> {
    await this.read("SELECT 1", []);
  }

  async close(): Promise<void> {
    if (this.#db.closed) return;
    this.#db.closed = true;
    await this.#ingest.idle();
    await this.#folder.settled();
    await this.#folder.fold().catch(() => undefined); // what is left now rather than at the next read or drop
    await this.#db.pool.end();
  }

  protected override read(sql: string, values: unknown[]): Promise<unknown[][]> {
    return this.#db.read(sql, values);
  }
}
