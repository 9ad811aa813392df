import { createHash } from "node:crypto";
import { type ClickHouseClient, ClickHouseLogLevel, createClient } from "@clickhouse/client";
import type {
  AcceptedReport,
  CollectorStorage,
  GroupCommitListener,
  RoundCounts,
  RoundReads,
  RoundState,
  SchemaVersionCheck,
  StoredRound,
  StoreResult,
  SupportCounts,
} from "../../api.js";
import { InvalidParameterError, RoundClosedError, StorageError } from "../../errors.js";
import { clickHouseSchemaVersion, clickHouseShard } from "../../migrations/clickhouse.js";
import type { SchemaMigration } from "../../migrations/runner.js";
import {
  countsFromRows,
  droppedCounters,
  roundFromRow,
  stateFromRow,
  supportFromRows,
} from "../../storage-rows.js";
import { clickHouseRoundReads } from "./campaign-summary.js";
import { HeldIds } from "./held-ids.js";
import { ShardHttp } from "./http.js";
import { prepareTables, select } from "./schema.js";
import { CLOSED, type JobResult, ShardWriter } from "./shard-writer.js";
import { type ClickHouseLocation, parseClickHouseUrl, shardOf } from "./url.js";
import { REPORT_MARK, sweepCopies } from "./write-offs.js";

/** Reports per group (one lookup and one insert on one shard) at most. */
const MAX_GROUP_REPORTS = 20_000;
/** Ids a process keeps as known held per shard (32 to 64 bytes each; see HeldIds). */
const HELD_IDS = 1 << 20;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Options of {@link openClickHouseStorage}. */
export interface ClickHouseStorageOptions {
  /** Milliseconds before a request to a shard counts as failed (default 30,000). */
  readonly requestTimeout?: number;
  /**
   * Groups per shard in flight at once in this process (default 1: one group
   * commit per shard, so the fewest and largest inserts; 2 overlaps one group's
   * lookup with another's insert, for a cluster with idle cores).
   */
  readonly pipeline?: number;
}

/**
 * A ClickHouse cluster of N shards as collector storage, over ClickHouse's HTTP
 * interface (the official client `@clickhouse/client`; kept to SQL that server
 * 18.16 accepts). Any number of collector processes may share it.
 *
 * Layout, in `database` on every shard (`prepareTables`): `calm_reports`
 * (`MergeTree`, one row per report), the counts per (round, view, cell) that a
 * materialized view keeps as rows arrive (`calm_cell_counts`), the write-offs
 * of ids stored twice (`calm_count_fixes`), counters, rounds (every shard holds
 * every round) and `Distributed` tables over the cluster.
 *
 * Placement: the collector sends each report to shard `shardOf(id)` itself and
 * inserts it into that shard's local table synchronously (the HTTP insert
 * answers once the part is written), so a batch is acknowledged only after
 * every report of it is in its shard, and a retry reaches the same shard. Per
 * shard one writer per process commits in groups (`ShardWriter`): one query
 * looks the group's new ids up in the shard, one insert writes the new ones
 * (`RowBinary` over HTTP; their counts in the same statement), one query checks
 * them for a racing copy before the group is answered; ids it inserted are kept in
 * memory (`HeldIds`), which with the lookup makes `stored`/`duplicates` exact
 * within one process.
 *
 * Exact counting: two collectors racing on the same new id can both insert it;
 * the later of the two checks sees both rows and writes the surplus off
 * (`writeOffCopies`), and a racer that died before its check leaves the copy to
 * the lookup of the retry (which sees two rows) or, never retried, to the sweep
 * before the closed round's ids are dropped (`sweepCopies`), so the counts read
 * (maintained counts plus write-offs) equal a recount keeping one row per id. Since one id
 * lives on one shard, each shard's de-duplication is the global one. In that
 * race the `duplicates` counter can miss the loser (both were told "stored");
 * the counts stay exact. A batch spanning a shard that fails gets `StorageError`
 * (HTTP 503) after the other shards may have stored their part; the retry finds
 * those as duplicates. Durability: ClickHouse writes parts without fsync, so an
 * acknowledged report survives the collector's or ClickHouse's process dying,
 * not the machine losing power (use replicated tables for that).
 *
 * Cost per batch of b reports: a lookup, an insert and a check per shard touched
 * (shared by the batches of a group); counting reads the maintained counts,
 * O(views x cells x unmerged parts) on the shards, independent of the reports.
 */
export async function openClickHouseStorage(
  url: string,
  options: ClickHouseStorageOptions = {},
): Promise<CollectorStorage> {
  const location = parseClickHouseUrl(url);
  const requestTimeout = options.requestTimeout ?? 30_000;
  const pipeline = options.pipeline ?? 1;
  if (!Number.isSafeInteger(pipeline) || pipeline < 1 || pipeline > 8)
    throw new InvalidParameterError(`ClickHouse pipeline must be an integer from 1 to 8 (got ${pipeline})`);
  const clients = location.shards.map((shard) =>
    createClient({
      url: shard,
      username: location.username,
      password: location.password,
      request_timeout: requestTimeout,
      compression: { response: false, request: false },
      max_open_connections: 16,
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
      // Failures reach the caller as StorageError (HTTP 503); the client need not log them too.
      log: { level: ClickHouseLogLevel.OFF },
    }),
  );
  let schemaMigration: SchemaMigration;
  try {
    schemaMigration = await prepareTables(clients, location);
  } catch (error) {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    throw new StorageError(`openClickHouseStorage: cannot prepare the cluster: ${message(error)}`);
  }
  const http = location.shards.map(
    (shard) => new ShardHttp(shard, location.username, location.password, location.database, requestTimeout),
  );
  const storage = new ClickHouseStorage(clients, http, location, requestTimeout, pipeline);
  storage.schemaMigration = schemaMigration;
  return storage;
}

function message(error: unknown): string {
  return (error as Error).message?.split("\n")[0] ?? String(error);
}

class ClickHouseStorage implements CollectorStorage {
  readonly backend = "clickhouse";
  /** What opening the cluster did to its schema (see migrations/clickhouse.ts). */
  schemaMigration: SchemaMigration | undefined;
  readonly #clients: ClickHouseClient[];
  readonly #http: ShardHttp[];
  readonly #db: string;
  readonly #writers: ShardWriter[];
  #reader = 0;
  #closed = false;

  /** Milliseconds a request to a shard may take (a batch in flight is done or failed after it). */
  readonly #requestTimeout: number;

  constructor(
    clients: ClickHouseClient[],
    http: ShardHttp[],
    location: ClickHouseLocation,
    requestTimeout: number,
    pipeline: number,
  ) {
    this.#requestTimeout = requestTimeout;
    this.#clients = clients;
    this.#http = http;
    this.#db = location.database;
    this.#writers = http.map(
      (shard) =>
        new ShardWriter(shard, this.#db, new HeldIds(HELD_IDS), {
          pipeline,
          maxGroupReports: MAX_GROUP_REPORTS,
          failure: (error) =>
            error instanceof StorageError
              ? error
              : new StorageError(`ClickHouse write failed: ${message(error)}`),
        }),
    );
  }

  async createRound(round: Omit<StoredRound, "no">): Promise<StoredRound> {
    if (!UUID.test(round.id)) throw new StorageError(`round id ${JSON.stringify(round.id)} is not a UUID`);
    // The round's number: 48 bits of SHA-256 of its id (a collision among r rounds has
    // probability ~ r^2 / 2^49, and is refused below rather than mixing two rounds).
    const no = Number.parseInt(createHash("sha256").update(round.id).digest("hex").slice(0, 12), 16);
    const taken = await this.#guard("read", () =>
      select(
        this.#clients[0]!,
        `SELECT round_id FROM ${this.#db}.calm_rounds WHERE round_no = ${no} LIMIT 1`,
      ),
    );
    if (taken.length > 0 && taken[0]![0] !== round.id)
      throw new StorageError(
        `round number ${no} of round ${round.id} is taken by round ${String(taken[0]![0])}`,
      );
    // Stored already (another collector opened the same campaign round): that is the round.
    if (taken.length > 0) return (await this.findRound(round.id))!;
    const row = {
      round_no: no,
      round_id: round.id,
      created_at: round.createdAt,
      plan: JSON.stringify(round.plan),
      request: JSON.stringify(round.request),
    };
    await this.#guard("write", () =>
      Promise.all(
        this.#clients.map((client) =>
          client.insert({ table: `${this.#db}.calm_rounds`, values: [row], format: "JSONEachRow" }),
        ),
      ),
    );
    // Two collectors racing on one id both insert a row with the same number (one round:
    // reports are keyed by the number); readers take the earliest opening time.
    return (await this.findRound(round.id)) ?? { ...round, no };
  }

  async findRound(id: string): Promise<StoredRound | undefined> {
    if (!UUID.test(id)) return undefined;
    const rows = await this.#readAnyShard(
      `SELECT round_no, round_id, created_at, plan, request FROM ${this.#db}.calm_rounds
       WHERE round_id = '${id}' ORDER BY created_at LIMIT 1`,
    );
    return rows.length === 0 ? undefined : roundFromRow(rows[0]!);
  }

  async listRounds(): Promise<StoredRound[]> {
    // One row per id.
    const rows = await this.#readAnyShard(
      `SELECT any(round_no), round_id, min(created_at) AS c, any(plan), any(request)
       FROM ${this.#db}.calm_rounds GROUP BY round_id ORDER BY c, round_id`,
    );
    return rows.map(roundFromRow);
  }

  /**
   * A read of the rounds table, which every shard holds in full: the first shard
   * that answers decides; when none does, the last failure is thrown.
   */
  async #readAnyShard(sql: string): Promise<unknown[][]> {
    let failure: unknown;
    for (const client of this.#clients) {
      try {
        return await this.#guard("read", () => select(client, sql));
      } catch (error) {
        failure = error;
      }
    }
    throw failure;
  }

  async storeReports(round: StoredRound, reports: readonly AcceptedReport[]): Promise<StoreResult> {
    if (this.#closed) throw new StorageError("ClickHouse storage: closed");
    const parts = this.#clients.map((): AcceptedReport[] => []);
    for (const report of reports) {
      if (!UUID.test(report.id))
        throw new StorageError(`report id ${JSON.stringify(report.id)} is not a UUID`);
      parts[shardOf(report.id, parts.length)]!.push(report);
    }
    const results = await Promise.allSettled(
      parts.map((part, shard) =>
        part.length === 0
          ? Promise.resolve({ stored: 0, duplicates: 0 })
          : this.#writers[shard]!.submit({ round, reports: part }),
      ),
    );
    const failed = results.find((r) => r.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    const values = results.map((r) => (r as PromiseFulfilledResult<JobResult>).value);
    if (
      values.includes(CLOSED) &&
      values.every((value, shard) => value === CLOSED || parts[shard]!.length === 0)
    )
      throw new RoundClosedError(round.id);
    // The close reached some shards while this batch was in flight (a close writes every shard in
    // turn): the batch is stored whole, as a batch in flight at closing may be, and acknowledged,
    // never half stored and refused.
    for (const [shard, value] of values.entries())
      if (value === CLOSED)
        values[shard] = await this.#writers[shard]!.submit({ round, reports: parts[shard]!, force: true });
    const stored = values.reduce((s, r) => s + (r as StoreResult).stored, 0);
    return { stored, duplicates: reports.length - stored };
  }

  async countRejected(round: StoredRound, reason: string, reports: number): Promise<void> {
    await this.#addCounters([{ round_no: round.no, name: `rejected:${reason}`, value: reports }]);
  }

  /** One insert of each view's counter row (`dropped:<reason>:<view>`; the counters table sums them). */
  async countDropped(round: StoredRound, reason: string, perView: readonly number[]): Promise<void> {
    const rows = droppedCounters(reason, perView).map((c) => ({
      round_no: round.no,
      name: c.name,
      value: c.amount,
    }));
    if (rows.length > 0) await this.#addCounters(rows);
  }

  async closeRound(round: StoredRound, at: Date): Promise<RoundState> {
    const state = await this.roundState(round);
    if (state.closedAt !== null) return state;
    // Every shard holds the state (each checks it when storing); two closers racing both
    // insert a row, and the earliest time counts (`min`).
    const row = { round_no: round.no, round_id: round.id, closed_at: at.toISOString(), ids_dropped_at: "" };
    await this.#guard("write", () =>
      Promise.all(
        this.#clients.map((client) =>
          client.insert({ table: `${this.#db}.calm_round_state`, values: [row], format: "JSONEachRow" }),
        ),
      ),
    );
    return this.roundState(round);
  }

  async heldIds(round: StoredRound): Promise<number> {
    // Rows, not distinct ids: a copy of an id two collectors raced on counts here (it is
    // written off in the counts, and deleted with the round's rows).
    const rows = await this.#guard("read", () =>
      select(
        this.#readClient(),
        `SELECT count() FROM ${this.#db}.calm_reports_all WHERE round_no = ${round.no}`,
      ),
    );
    return Number(rows[0]![0]);
  }

  async roundState(round: StoredRound): Promise<RoundState> {
    const rows = await this.#guard("read", () =>
      select(
        this.#readClient(),
        `SELECT min(closed_at), max(ids_dropped_at) FROM ${this.#db}.calm_round_state
         WHERE round_no = ${round.no} GROUP BY round_no`,
      ),
    );
    return stateFromRow(rows[0]);
  }

  /**
   * Per due round: every shard writes off every id it holds in several rows
   * (`sweepCopies`, one full read of the round's ids: copies no writer's check
   * saw, left by a collector killed between its insert and its check and never
   * retried), gets the dropped mark, then its rows are deleted (`ALTER TABLE ...
   * DELETE`, an asynchronous mutation). The round's counts stay in
   * `calm_cell_counts` and `calm_count_fixes`, which the rows were counted into
   * as they were inserted, so reads do not change. A round qualifies only once
   * it was closed two request timeouts before `at` (whatever `closedBefore`
   * says): every batch that passed the closed check before the close has been
   * inserted or failed by then, so no copy arrives after the sweep.
   */
  async dropClosedIds(closedBefore: Date, at: Date): Promise<string[]> {
    const settled = at.getTime() - 2 * this.#requestTimeout;
    if (closedBefore.getTime() > settled) closedBefore = new Date(settled);
    const due = await this.#guard("read", () =>
      select(
        this.#clients[0]!,
        `SELECT round_no, any(round_id), min(closed_at) FROM ${this.#db}.calm_round_state GROUP BY round_no
         HAVING min(closed_at) <= '${closedBefore.toISOString()}' AND max(ids_dropped_at) = ''
         ORDER BY round_no`,
      ),
    );
    for (const [no, id, closedAt] of due) {
      const round = Number(no);
      await this.#guard("write", async () => {
        // Copies no writer's check saw are written off while their rows are still there.
        await Promise.all(this.#http.map((shard) => sweepCopies(shard, this.#db, round)));
        const mark = {
          round_no: round,
          round_id: String(id),
          closed_at: String(closedAt),
          ids_dropped_at: at.toISOString(),
        };
        await Promise.all(
          this.#clients.map((client) =>
            client.insert({ table: `${this.#db}.calm_round_state`, values: [mark], format: "JSONEachRow" }),
          ),
        );
        await Promise.all(
          this.#clients.map((client) =>
            client.command({
              query: `ALTER TABLE ${this.#db}.calm_reports DELETE WHERE round_no = ${round}`,
            }),
          ),
        );
      });
    }
    return due.map((row) => String(row[1]));
  }

  /**
   * The counts of a round per (view, cell), `REPORT_MARK` cells counting
   * reports: on every shard at once (its local tables, one query each, no
   * Distributed hop), the maintained counts (`calm_cell_counts`, summed over its
   * unmerged parts) plus, per (id, view, cell) of an id stored more than once,
   * its latest write-off (`calm_count_fixes`); the shards' answers added up here
   * (integers: exact in any order). Cost: O(views x cells x unmerged parts + ids
   * stored twice) per shard, independent of the reports; the reports and support
   * counts of one inserted block are read together (one part of the counts).
   */
  async #cellCounts(round: number): Promise<Map<number, Map<number, number>>> {
    const sql = `SELECT view, cell, sum(n) FROM (
        SELECT view, cell, n FROM ${this.#db}.calm_cell_counts WHERE round_no = ${round}
        UNION ALL
        SELECT view, cell, argMax(n, copies) AS n FROM ${this.#db}.calm_count_fixes
        WHERE round_no = ${round} GROUP BY report_id, view, cell
      ) GROUP BY view, cell`;
    const answers = await this.#guard("read", () => Promise.all(this.#http.map((shard) => shard.query(sql))));
    const totals = new Map<number, Map<number, number>>();
    for (const rows of answers)
      for (const [view, cell, n] of rows) {
        const perView = totals.get(Number(view)) ?? new Map<number, number>();
        totals.set(Number(view), perView);
        perView.set(Number(cell), (perView.get(Number(cell)) ?? 0) + Number(n));
      }
    return totals;
  }

  async counts(round: StoredRound): Promise<RoundCounts> {
    const [totals, counters] = await Promise.all([
      this.#cellCounts(round.no),
      this.#guard("read", () =>
        select(
          this.#readClient(),
          `SELECT name, sum(value) FROM ${this.#db}.calm_counters_all WHERE round_no = ${round.no} GROUP BY name`,
        ),
      ),
    ]);
    return countsFromRows(
      round,
      [...totals].map(([view, cells]) => [view, cells.get(REPORT_MARK) ?? 0]),
      counters.map(([name, value]) => [name, Number(value)]),
    );
  }

  async supportCounts(round: StoredRound): Promise<SupportCounts> {
    const reportRows: unknown[][] = [];
    const supportRows: unknown[][] = [];
    for (const [view, cells] of await this.#cellCounts(round.no))
      for (const [cell, count] of cells) {
        if (cell === REPORT_MARK) reportRows.push([view, count]);
        else if (count !== 0) supportRows.push([view, cell, count]);
      }
    return supportFromRows(round.plan, reportRows, supportRows);
  }

  observeGroupCommits(listener: GroupCommitListener): void {
    for (const [shard, writer] of this.#writers.entries())
      writer.observe((group) => listener({ ...group, shard }));
  }

  /** Reads of many rounds in a fixed number of requests (storage/clickhouse/campaign-summary.ts). */
  roundReads(): RoundReads {
    return clickHouseRoundReads({
      db: this.#db,
      read: (sql) => this.#guard("read", () => select(this.#readClient(), sql)),
      readShards: (sql) =>
        this.#guard("read", () => Promise.all(this.#http.map((shard) => shard.query(sql)))),
    });
  }

  async ping(): Promise<void> {
    await this.#guard("read", () => Promise.all(this.#clients.map((client) => select(client, "SELECT 1"))));
  }

  /** Readiness: every shard answers and carries the current schema version (no write probe). */
  async ready(): Promise<SchemaVersionCheck> {
    return this.#guard("read", () => clickHouseSchemaVersion(this.#clients.map(clickHouseShard), this.#db));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    await Promise.all(this.#writers.map((writer) => writer.idle()));
    this.#closed = true;
    for (const shard of this.#http) shard.close();
    await Promise.all(this.#clients.map((client) => client.close()));
  }

  async #addCounters(values: readonly { round_no: number; name: string; value: number }[]): Promise<void> {
    await this.#guard("write", () =>
      this.#readClient().insert({ table: `${this.#db}.calm_counters`, values, format: "JSONEachRow" }),
    );
  }

  /** The shard whose Distributed tables answer the next read (round robin). */
  #readClient(): ClickHouseClient {
    this.#reader = (this.#reader + 1) % this.#clients.length;
    return this.#clients[this.#reader]!;
  }

  async #guard<T>(kind: "read" | "write", body: () => Promise<T>): Promise<T> {
    if (this.#closed) throw new StorageError("ClickHouse storage: closed");
    try {
      return await body();
    } catch (error) {
      if (error instanceof StorageError) throw error;
      throw new StorageError(`ClickHouse ${kind} failed: ${message(error)}`);
    }
  }
}
