import { createHash } from "node:crypto";
import { type ClickHouseClient, ClickHouseLogLevel, createClient } from "@clickhouse/client";
import type {
  AcceptedReport,
  CollectorStorage,
  RoundCounts,
  RoundState,
  SchemaVersionCheck,
  StoredRound,
  StoreResult,
  SupportCounts,
} from "./api.js";
import { InvalidParameterError, RoundClosedError, StorageError } from "./errors.js";
import { GroupCommit } from "./group-commit.js";
import { clickHouseSchemaVersion, clickHouseShard, versionClickHouseShard } from "./migrations/clickhouse.js";
import { countsFromRows, roundFromRow, stateFromRow, supportFromRows } from "./storage-rows.js";

/** Reports per group (one id lookup and one insert into one shard) at most. */
const MAX_GROUP_REPORTS = 10_000;
/** Bytes of SQL text the server parses (its default, 256 KiB, holds ~6,700 ids of an `IN` list). */
const MAX_QUERY_SIZE = 1 << 20;
/** The cell that marks "one report" in the single counting query (above every view's cells). */
const REPORT_MARK = 4_294_967_295;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Where a ClickHouse cluster is, parsed from `http://[user[:password]@]host:port,host:port/database?cluster=name`. */
export interface ClickHouseLocation {
  /** The HTTP endpoint of each shard, in the order of the cluster's shards (`http://host:port`). */
  readonly shards: readonly string[];
  readonly username: string;
  readonly password: string;
  /** Database of the collector's tables (created when absent). */
  readonly database: string;
  /** The `remote_servers` cluster that names every shard (the Distributed tables read it). */
  readonly cluster: string;
}

/**
 * Parse a ClickHouse cluster URL: `http://[user[:password]@]host1:port1,host2:port2/database?cluster=name`
 * (hosts listed in the cluster's shard order, as libpq lists several PostgreSQL hosts;
 * database default `calm_ldp`, cluster default `calm_ldp`). Throws
 * `InvalidParameterError` naming the part that is wrong. O(length).
 */
export function parseClickHouseUrl(url: string): ClickHouseLocation {
  const match = /^(https?):\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?#]+)(?:\/([^?#]*))?(?:\?([^#]*))?$/.exec(
    url,
  );
  if (!match)
    throw new InvalidParameterError(
      `ClickHouse URL must look like http://host:port,host:port/database?cluster=name (got ${JSON.stringify(url.replace(/\/\/[^@/]*@/, "//***@"))})`,
    );
  const [, scheme, user, password, hosts, path, query] = match;
  const shards = hosts!.split(",").map((host) => {
    if (!/^[A-Za-z0-9.\-[\]:]+:\d+$/.test(host))
      throw new InvalidParameterError(`ClickHouse URL: shard ${JSON.stringify(host)} is not host:port`);
    return `${scheme}://${host}`;
  });
  const params = new URLSearchParams(query ?? "");
  const database = decodeURIComponent(path || "calm_ldp");
  const cluster = params.get("cluster") ?? "calm_ldp";
  for (const [what, name] of [
    ["database", database],
    ["cluster", cluster],
  ] as const)
    if (!IDENTIFIER.test(name))
      throw new InvalidParameterError(`ClickHouse URL: ${what} ${JSON.stringify(name)} is not an identifier`);
  return {
    shards,
    username: decodeURIComponent(user || "default"),
    password: decodeURIComponent(password ?? ""),
    database,
    cluster,
  };
}

/**
 * The shard of a report id: FNV-1a (32 bits) of its text, mod the number of
 * shards. Every collector computes the same shard for the same id, so a retried
 * report reaches the shard that already holds it. O(36).
 */
export function shardOf(id: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % shards;
}

/** Options of {@link openClickHouseStorage}. */
export interface ClickHouseStorageOptions {
  /** Milliseconds before a request to a shard counts as failed (default 30,000). */
  readonly requestTimeout?: number;
}

/** `force`: store even if the shard has the round closed (the rest of the batch was stored). */
type Job = { round: StoredRound; reports: readonly AcceptedReport[]; force?: boolean };
/** What a job of a closed round returns (storeReports throws RoundClosedError). */
const CLOSED = Symbol("closed");
type JobResult = StoreResult | typeof CLOSED;

/**
 * A ClickHouse cluster of N shards as collector storage, over ClickHouse's HTTP
 * interface (the official client `@clickhouse/client`; kept to SQL that server
 * 18.16 accepts). Any number of collector processes may share it.
 *
 * Layout, in `database` on every shard: a local table `calm_reports`
 * (`ReplacingMergeTree`, sorting key (round, report id), one row per report with
 * its view and supported cells as an array), `calm_counters` (`SummingMergeTree`)
 * and `calm_rounds` (the round's plan, written to every shard), and `Distributed`
 * tables `calm_reports_all` / `calm_counters_all` over the cluster.
 *
 * Placement: the collector sends each report to shard `shardOf(id)` itself and
 * inserts it into that shard's local table synchronously (the HTTP insert
 * answers once the part is written), so a batch is acknowledged only after
 * every report of it is in its shard, and a retry reaches the same shard. Per
 * shard one writer per process commits in groups (`GroupCommit`): it looks the
 * group's ids up in the shard (`SELECT ... WHERE report_id IN`) and inserts only
 * the new ones, which makes `stored`/`duplicates` exact within one process.
 *
 * Exact counting: two collectors racing on the same new id can both insert it;
 * every count therefore reads `FINAL` (ReplacingMergeTree collapses rows with
 * one (round, id) at query time, whether or not a merge has run), and since one
 * id lives on one shard, each shard's de-duplication is the global one. In that
 * race the `duplicates` counter can miss the loser (both were told "stored");
 * the counts stay exact. A batch spanning a shard that fails gets `StorageError`
 * (HTTP 503) after the other shards may have stored their part; the retry finds
 * those as duplicates. Durability: ClickHouse writes parts without fsync, so an
 * acknowledged report survives the collector's or ClickHouse's process dying,
 * not the machine losing power (use replicated tables for that).
 *
 * Cost per batch of b reports: one id lookup and one insert per shard touched;
 * counting reads every row of the round once (O(reports x cells) on the shards,
 * O(views x cells) sent to the collector).
 */
export async function openClickHouseStorage(
  url: string,
  options: ClickHouseStorageOptions = {},
): Promise<CollectorStorage> {
  const location = parseClickHouseUrl(url);
  const requestTimeout = options.requestTimeout ?? 30_000;
  const clients = location.shards.map((shard) =>
    createClient({
      url: shard,
      username: location.username,
      password: location.password,
      request_timeout: requestTimeout,
      compression: { response: false, request: false },
      max_open_connections: 16,
      clickhouse_settings: {
        output_format_json_quote_64bit_integers: 0,
        max_query_size: String(MAX_QUERY_SIZE),
      },
      // Failures reach the caller as StorageError (HTTP 503); the client need not log them too.
      log: { level: ClickHouseLogLevel.OFF },
    }),
  );
  try {
    await prepare(clients, location);
  } catch (error) {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    throw new StorageError(`openClickHouseStorage: cannot prepare the cluster: ${message(error)}`);
  }
  return new ClickHouseStorage(clients, location, requestTimeout);
}

async function prepare(clients: ClickHouseClient[], location: ClickHouseLocation): Promise<void> {
  const { database: db, cluster } = location;
  const schema = [
    `CREATE DATABASE IF NOT EXISTS ${db}`,
    `CREATE TABLE IF NOT EXISTS ${db}.calm_rounds (round_no UInt64, round_id String, created_at String,
       plan String, request String) ENGINE = ReplacingMergeTree() ORDER BY round_no`,
    `CREATE TABLE IF NOT EXISTS ${db}.calm_reports (round_no UInt64, report_id UUID, view UInt32,
       cells Array(UInt32)) ENGINE = ReplacingMergeTree() ORDER BY (round_no, report_id)`,
    `CREATE TABLE IF NOT EXISTS ${db}.calm_counters (round_no UInt64, name String, value Int64)
       ENGINE = SummingMergeTree() ORDER BY (round_no, name)`,
    `CREATE TABLE IF NOT EXISTS ${db}.calm_round_state (round_no UInt64, round_id String, closed_at String,
       ids_dropped_at String) ENGINE = MergeTree() ORDER BY round_no`,
    `CREATE TABLE IF NOT EXISTS ${db}.calm_closed_counts (round_no UInt64, view UInt32, cell UInt32,
       count UInt64) ENGINE = ReplacingMergeTree() ORDER BY (round_no, view, cell)`,
    `CREATE TABLE IF NOT EXISTS ${db}.calm_closed_counts_all AS ${db}.calm_closed_counts
       ENGINE = Distributed(${cluster}, ${db}, calm_closed_counts)`,
    `CREATE TABLE IF NOT EXISTS ${db}.calm_reports_all AS ${db}.calm_reports
       ENGINE = Distributed(${cluster}, ${db}, calm_reports)`,
    `CREATE TABLE IF NOT EXISTS ${db}.calm_counters_all AS ${db}.calm_counters
       ENGINE = Distributed(${cluster}, ${db}, calm_counters)`,
  ];
  await Promise.all(
    clients.map(async (client, i) => {
      const rows = await select(
        client,
        `SELECT shard_num FROM system.clusters WHERE cluster = '${cluster}' AND is_local = 1`,
      );
      const shards = await select(client, `SELECT count() FROM system.clusters WHERE cluster = '${cluster}'`);
      if (rows.length !== 1 || Number(rows[0]![0]) !== i + 1 || Number(shards[0]![0]) !== clients.length)
        throw new Error(
          `${location.shards[i]} is not shard ${i + 1} of ${clients.length} of cluster ${cluster} ` +
            `(its system.clusters: shard ${rows.map((r) => r[0]).join(",") || "none"} of ${shards[0]?.[0]})`,
        );
      for (const statement of schema) {
        // Two collectors starting at once may race on CREATE ... IF NOT EXISTS: retry once.
        await client.command({ query: statement }).catch(() => client.command({ query: statement }));
      }
      await versionClickHouseShard(clickHouseShard(client), db);
    }),
  );
}

async function select(client: ClickHouseClient, query: string): Promise<unknown[][]> {
  const result = await client.query({ query, format: "JSONCompact" });
  return ((await result.json()) as { data: unknown[][] }).data;
}

function message(error: unknown): string {
  return (error as Error).message?.split("\n")[0] ?? String(error);
}

class ClickHouseStorage implements CollectorStorage {
  readonly backend = "clickhouse";
  readonly #clients: ClickHouseClient[];
  readonly #db: string;
  readonly #writers: GroupCommit<Job, JobResult>[];
  #reader = 0;
  #closed = false;

  /** Milliseconds a request to a shard may take (a batch in flight is done or failed after it). */
  readonly #requestTimeout: number;

  constructor(clients: ClickHouseClient[], location: ClickHouseLocation, requestTimeout: number) {
    this.#requestTimeout = requestTimeout;
    this.#clients = clients;
    this.#db = location.database;
    this.#writers = clients.map(
      (client) =>
        new GroupCommit<Job, JobResult>(
          (jobs) => this.#storeGroup(client, jobs),
          (job) => job.reports.length,
          MAX_GROUP_REPORTS,
        ),
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
    await this.#addCounter(round, `rejected:${reason}`, reports);
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
    // Rows, not distinct ids: a duplicate racing in two collectors counts until merged.
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
   * Per due round: every shard adds its rows' counts to its `calm_closed_counts`
   * (ReplacingMergeTree: two collectors doing the same write identical rows), then
   * every shard gets the dropped mark (reads switch from rows to counts, shard by
   * shard, in the same query), then the rows are deleted (`ALTER TABLE ... DELETE`,
   * an asynchronous mutation). A batch in flight when the counts are taken would
   * not be counted, so a round qualifies only once it was closed two request
   * timeouts before `at` (whatever `closedBefore` says): every batch that passed
   * the closed check before the close has been answered or failed by then.
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
        await Promise.all(
          this.#clients.map((client) =>
            client.command({
              query: `INSERT INTO ${this.#db}.calm_closed_counts
                SELECT round_no, view, cell, count() FROM ${this.#db}.calm_reports FINAL
                ARRAY JOIN arrayPushFront(cells, toUInt32(${REPORT_MARK})) AS cell
                WHERE round_no = ${round} GROUP BY round_no, view, cell`,
            }),
          ),
        );
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
   * The rows of a round counted per (view, cell) on every shard, `REPORT_MARK`
   * cells counting reports: each shard reads its report rows until the round's ids
   * were dropped there, its closed counts after (decided in the query itself).
   */
  #countsQuery(round: number): string {
    const dropped = `(SELECT round_no FROM ${this.#db}.calm_round_state WHERE ids_dropped_at != '')`;
    return `SELECT view, cell, sum(n) AS total FROM (
        SELECT view, cell, count() AS n FROM ${this.#db}.calm_reports_all FINAL
        ARRAY JOIN arrayPushFront(cells, toUInt32(${REPORT_MARK})) AS cell
        WHERE round_no = ${round} AND round_no NOT IN ${dropped} GROUP BY view, cell
        UNION ALL
        SELECT view, cell, count AS n FROM ${this.#db}.calm_closed_counts_all FINAL
        WHERE round_no = ${round} AND round_no IN ${dropped}
      ) GROUP BY view, cell`;
  }

  async counts(round: StoredRound): Promise<RoundCounts> {
    const client = this.#readClient();
    const [perView, counters] = await this.#guard("read", () =>
      Promise.all([
        select(
          client,
          `SELECT view, total FROM (${this.#countsQuery(round.no)}) WHERE cell = ${REPORT_MARK}`,
        ),
        select(
          client,
          `SELECT name, sum(value) FROM ${this.#db}.calm_counters_all WHERE round_no = ${round.no} GROUP BY name`,
        ),
      ]),
    );
    return countsFromRows(
      round,
      perView.map(([view, count]) => [Number(view), Number(count)]),
      counters.map(([name, value]) => [name, Number(value)]),
    );
  }

  async supportCounts(round: StoredRound): Promise<SupportCounts> {
    // One query (one read of each shard) yields both aggregates, so they agree under
    // concurrent inserts: every report contributes a REPORT_MARK row besides its cells.
    const rows = await this.#guard("read", () => select(this.#readClient(), this.#countsQuery(round.no)));
    const reportRows: unknown[][] = [];
    const supportRows: unknown[][] = [];
    for (const [view, cell, count] of rows) {
      if (Number(cell) === REPORT_MARK) reportRows.push([Number(view), Number(count)]);
      else supportRows.push([view, cell, count]);
    }
    return supportFromRows(round.plan, reportRows, supportRows);
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
    await Promise.all(this.#clients.map((client) => client.close()));
  }

  /** One group of batches for one shard: look the ids up, insert the new ones, count the rest. */
  async #storeGroup(client: ClickHouseClient, jobs: Job[]): Promise<JobResult[]> {
    const byRound = new Map<number, Job[]>();
    for (const job of jobs) byRound.set(job.round.no, [...(byRound.get(job.round.no) ?? []), job]);
    const results = new Map<Job, JobResult>();
    await this.#guard("write", async () => {
      for (const [no, group] of byRound) {
        const ids = [...new Set(group.flatMap((job) => job.reports.map((r) => r.id)))];
        // One query: the ids the shard holds, and 'closed' when the round is closed.
        const held = new Set(
          (
            await select(
              client,
              `SELECT toString(report_id) FROM ${this.#db}.calm_reports
               WHERE round_no = ${no} AND report_id IN (${ids.map((id) => `'${id}'`).join(",")})
               UNION ALL SELECT 'closed' FROM ${this.#db}.calm_round_state WHERE round_no = ${no} LIMIT 1`,
            )
          ).map((row) => String(row[0])),
        );
        const rows: { round_no: number; report_id: string; view: number; cells: readonly number[] }[] = [];
        let duplicates = 0;
        for (const job of group) {
          if (held.has("closed") && !job.force) {
            results.set(job, CLOSED);
            continue;
          }
          let stored = 0;
          for (const report of job.reports) {
            if (held.has(report.id)) continue;
            held.add(report.id);
            rows.push({ round_no: no, report_id: report.id, view: report.view, cells: report.cells });
            stored++;
          }
          duplicates += job.reports.length - stored;
          results.set(job, { stored, duplicates: job.reports.length - stored });
        }
        if (rows.length > 0)
          await client.insert({ table: `${this.#db}.calm_reports`, values: rows, format: "JSONEachRow" });
        if (duplicates > 0)
          await client.insert({
            table: `${this.#db}.calm_counters`,
            values: [{ round_no: no, name: "duplicates", value: duplicates }],
            format: "JSONEachRow",
          });
      }
    });
    return jobs.map((job) => results.get(job)!);
  }

  async #addCounter(round: StoredRound, name: string, amount: number): Promise<void> {
    await this.#guard("write", () =>
      this.#readClient().insert({
        table: `${this.#db}.calm_counters`,
        values: [{ round_no: round.no, name, value: amount }],
        format: "JSONEachRow",
      }),
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
