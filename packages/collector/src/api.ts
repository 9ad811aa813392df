import type { CalmPlan } from "@calm-ldp/calm-core";
import type { AttributeSpec } from "@calm-ldp/marginal-algebra";
import type { SchemaMigration } from "./migrations/runner.js";
import type { RateLimit } from "./rate-limit.js";
import type { TokenProtection } from "./tokens/protection.js";

/** What an admin posts to `POST /v1/rounds`: the public parameters of a CALM round. */
export interface RoundRequest {
  /** The attributes every record has: a name and labels, or a name and a cardinality. */
  readonly schema: { readonly attributes: readonly AttributeSpec[] };
  /** Privacy budget of one user's report (pure eps-LDP). */
  readonly eps: number;
  /** The query size the plan is tuned for (k-way marginals). */
  readonly k: number;
  /** Expected number of users. */
  readonly n: number;
  /** Error threshold of CALM's Algorithm 1 (default 0.001). */
  readonly theta?: number;
  /** Force one oracle for every view (default "adaptive": GRR when cells - 2 < 3 e^eps, else OUE). */
  readonly oracle?: "adaptive" | "grr" | "oue" | "sue";
  /** Set by the collector on the rounds of a campaign (see campaigns.ts); never accepted from a request. */
  readonly campaign?: CampaignTag;
}

/**
 * How a stored round belongs to a campaign: the campaign's definition (its id is
 * the campaign's id; closed at creation, it never takes reports) or its round
 * number `index` (0, 1, ...).
 */
export type CampaignTag =
  | {
      readonly id: string;
      readonly role: "definition";
      /** Length of a round in ms when rounds roll over on a schedule. */
      readonly roundEveryMs?: number;
      /** The clients' instantaneous layer eps (estimates are de-biased for it). */
      readonly instantEps?: number;
    }
  | {
      readonly id: string;
      readonly role: "round";
      readonly index: number;
      /** The campaign's instantEps, copied so the round's own marginals de-bias for it. */
      readonly instantEps?: number;
      /** The campaign's schedule, copied so a report after the round's window is refused. */
      readonly roundEveryMs?: number;
    };

/** A round as stored: its public id, its internal number, its plan and the request that made it. */
export interface StoredRound {
  /** Public id (a random UUID). */
  readonly id: string;
  /** Internal key of the round's rows (an integer assigned by the database). */
  readonly no: number;
  /** ISO 8601 creation time. */
  readonly createdAt: string;
  readonly plan: CalmPlan;
  readonly request: RoundRequest;
}

/**
 * A validated report ready to store: its id, its view, and the cells of the view
 * it supports (GRR: the reported value; OUE/SUE: the set bits). The support
 * cells are what SQL counts: `C(x)` of view v is the number of rows (v, x).
 */
export interface AcceptedReport {
  readonly id: string;
  readonly view: number;
  readonly cells: readonly number[];
}

/**
 * Reports of a batch acknowledged but not stored (the per-report unary check
 * dropped them), for `CollectorStorage.storeReportsAndDrops`: counted per view
 * under `reason`.
 */
export interface DroppedBatch {
  readonly reason: string;
  readonly reports: readonly AcceptedReport[];
}

/** What one store call did: reports stored for the first time, and reports whose id was already stored. */
export interface StoreResult {
  readonly stored: number;
  readonly duplicates: number;
}

/**
 * A round's lifecycle: open (reports accepted), closed at `closedAt` (reports
 * refused with `RoundClosedError`, counts kept), and from `idsDroppedAt` on its
 * report ids are gone: its rows were replaced by its counts.
 */
export interface RoundState {
  /** ISO 8601 time the round was closed, or null while it is open. */
  readonly closedAt: string | null;
  /** ISO 8601 time its report ids were dropped, or null while they are kept. */
  readonly idsDroppedAt: string | null;
}

/** The counters of a round. */
export interface RoundCounts {
  /** Reports stored (counted), over all views. */
  readonly accepted: number;
  /** Reports whose id was seen before (acknowledged, not counted again). */
  readonly duplicates: number;
  /** Reports refused, by reason (a refused request whose body is not a batch, or an empty batch, counts as one). */
  readonly rejected: Readonly<Record<string, number>>;
  /** Reports stored per view. */
  readonly perView: readonly number[];
  /**
   * Reports acknowledged but not stored, per reason and view (`unary-count`: the
   * per-report unary check; see `CollectorStorage.countDropped`). Every built-in
   * storage fills it (an empty object when none was dropped).
   */
  readonly dropped?: Readonly<Record<string, readonly number[]>>;
}

/** The database's aggregate of a round: reports per view and support counts per (view, cell). */
export interface SupportCounts {
  /** Reports per view (`SELECT view, count(*) ... GROUP BY view`). */
  readonly reportsPerView: readonly number[];
  /** Per view, `C(x)` for every cell x (`SELECT view, cell, count(*) ... GROUP BY view, cell`). */
  readonly support: readonly Float64Array[];
}

/**
 * Where a collector keeps rounds and reports. Two implementations: DuckDB in a
 * file (`openDuckDbStorage`, one process) and PostgreSQL (`openPostgresStorage`,
 * any number of collector processes sharing one database). Every method that
 * writes resolves only after the write is durable (committed); counting is done
 * by the database (SQL GROUP BY).
 */
export interface CollectorStorage {
  /** "duckdb" or "postgres". */
  readonly backend: string;
  /**
   * Store a new round; the database assigns its number. A round whose id is
   * stored already is not stored again: the stored round is returned (collectors
   * sharing PostgreSQL or ClickHouse opening the same campaign round get one round).
   */
  createRound(round: Omit<StoredRound, "no">): Promise<StoredRound>;
  /** The round with this public id, if any. */
  findRound(id: string): Promise<StoredRound | undefined>;
  /**
   * Every round, oldest first (campaigns find their rounds here; every built-in
   * storage has it, a storage without it serves no campaigns). O(rounds).
   */
  listRounds?(): Promise<StoredRound[]>;
  /**
   * Store reports of one round atomically: a report whose id the round already
   * holds (or that appears earlier in `reports`) is not stored again and counts as
   * a duplicate. Resolves after commit.
   */
  storeReports(round: StoredRound, reports: readonly AcceptedReport[]): Promise<StoreResult>;
  /**
   * Optional: `storeReports(round, reports)` and, in the same transaction, count
   * `dropped.reports` per view under `dropped.reason` (`counts(round).dropped`)
   * exactly once per report id: the ids of dropped reports are kept with the
   * round's report ids (and go with them, `dropClosedIds`), so a re-sent dropped
   * report is not counted again as dropped but in the round's `duplicates`
   * counter (the result's `stored` and `duplicates` are of `reports` alone).
   * Nothing is counted for a closed round (`RoundClosedError`, as `storeReports`). PostgreSQL has it;
   * without it the collector calls `storeReports`, then `countDropped` (a second
   * transaction, and a re-sent batch counts its dropped reports again).
   */
  storeReportsAndDrops?(
    round: StoredRound,
    reports: readonly AcceptedReport[],
    dropped: DroppedBatch,
  ): Promise<StoreResult>;
  /** Add `reports` to the round's count of refusals for `reason`. */
  countRejected(round: StoredRound, reason: string, reports: number): Promise<void>;
  /**
   * Optional: add `perView[v]` to the round's count of reports of view v that were
   * acknowledged but not stored for `reason` (counters of the database, like
   * `countRejected`'s, so every collector process on the storage and every restart
   * sees them in `counts(round).dropped`). Every built-in storage has it; without
   * it the collector counts in its own memory. Resolves after commit.
   */
  countDropped?(round: StoredRound, reason: string, perView: readonly number[]): Promise<void>;
  /** The round's counters. */
  counts(round: StoredRound): Promise<RoundCounts>;
  /** The round's aggregate, counted by the database. */
  supportCounts(round: StoredRound): Promise<SupportCounts>;
  /**
   * Close the round at `at` (idempotent: closing a closed round keeps the first
   * time): afterwards `storeReports` of the round rejects with `RoundClosedError`
   * (a batch already in flight may still be stored, and is counted). Its counts
   * stay. Resolves with the round's state after commit.
   */
  closeRound(round: StoredRound, at: Date): Promise<RoundState>;
  /** Report ids (report rows) the round holds: every stored report until its ids are dropped, then 0. */
  heldIds(round: StoredRound): Promise<number>;
  /** The round's lifecycle state. */
  roundState(round: StoredRound): Promise<RoundState>;
  /**
   * For every round closed at or before `closedBefore` that still holds report
   * rows: replace its report and support rows by their counts per (view, cell),
   * so `counts`/`supportCounts` answer as before while its report ids are gone.
   * Idempotent; safe while other collector processes do the same. Resolves with
   * the ids of the rounds it compacted.
   */
  dropClosedIds(closedBefore: Date, at: Date): Promise<string[]>;
  /** Throws if the database cannot be reached. */
  ping(): Promise<void>;
  /** Optional: rounds, open rounds and report rows held over every round, in one read (metrics). */
  roundTotals?(): Promise<RoundTotals>;
  /**
   * Optional: reads of many rounds at once (listings, campaign pages and series), a
   * fixed number of queries however many rounds; see {@link RoundReads}. Without it
   * callers read round by round (`roundReadsOf` in round-reads.ts).
   */
  roundReads?(): RoundReads;
  /** Optional: call `listener` after every group commit (size in reports, duration; for metrics). */
  observeGroupCommits?(listener: GroupCommitListener): void;
  /**
   * Optional: readiness (`GET /readyz`): throws `StorageError` unless the database
   * answers and takes a write; resolves with the schema version found and the one
   * this code writes (see migrations/).
   */
  ready?(): Promise<SchemaVersionCheck>;
  /** What opening the database did to its schema (versions before and after, steps run), when known. */
  readonly schemaMigration?: SchemaMigration | undefined;
  /** Finish pending writes and release the database. */
  close(): Promise<void>;
}

/** What a listing shows of a round: its counters, its state and the report ids it holds. */
export interface RoundStatus {
  readonly counts: RoundCounts;
  readonly state: RoundState;
  readonly idsHeld: number;
}

/**
 * Reads of many rounds, each answer in the order of `rounds` and equal to the
 * per-round read (`roundState`, `counts` + `roundState` + `heldIds`,
 * `supportCounts`) of each round: a fixed number of queries per call, whatever
 * the number of rounds (callers pass at most ROUND_READS_CHUNK rounds at once).
 */
export interface RoundReads {
  states(rounds: readonly StoredRound[]): Promise<RoundState[]>;
  statuses(rounds: readonly StoredRound[]): Promise<RoundStatus[]>;
  support(rounds: readonly StoredRound[]): Promise<SupportCounts[]>;
}

/** Totals over a storage's rounds: rounds stored, rounds not closed, report rows (ids) held. */
export interface RoundTotals {
  readonly rounds: number;
  readonly open: number;
  readonly held: number;
}

/** What a storage reports after each group commit: its reports (or jobs), duration, outcome. */
export type GroupCommitListener = (group: {
  readonly size: number;
  readonly seconds: number;
  readonly failed: boolean;
  /** ClickHouse: the shard (index in the URL) and the rows the group inserted there. */
  readonly shard?: number;
  readonly rows?: number;
}) => void;

/** A database's schema version against the one this collector writes. */
export interface SchemaVersionCheck {
  /** The version stored in the database. */
  readonly found: number;
  /** The version this code creates and migrates to. */
  readonly expected: number;
}

/** Options of {@link createCollector}. */
export interface CollectorOptions {
  readonly storage: CollectorStorage;
  /** Bearer token of the admin endpoints (at least 16 characters). */
  readonly adminToken: string;
  /** Most reports per POST (default 1000); larger batches get 413. */
  readonly maxBatch?: number;
  /** Most bytes per request body (default 1 MiB); larger bodies get 413. */
  readonly bodyLimit?: number;
  /** Largest marginal a query may ask for, in cells (default 2^20). */
  readonly maxQueryCells?: number;
  /**
   * Origins (`https://host[:port]`) whose web pages may fetch plans and post
   * reports (CORS); default none: no cross-origin access. Admin endpoints are
   * never available cross-origin.
   */
  readonly allowOrigins?: readonly string[];
  /**
   * Milliseconds a closed round keeps its report ids before they are dropped
   * (its counts stay; default 3,600,000: one hour). 0 drops them at the next sweep.
   */
  readonly idRetentionMs?: number;
  /**
   * Per client address (the socket's, `request.ip`): at most `perSecond` requests
   * per second sustained, `burst` at once (token bucket); more get 429
   * `rate-limited` with `Retry-After`. Default: no limit. Every endpoint counts.
   */
  readonly rateLimit?: RateLimit;
  /**
   * Reverse proxies whose `X-Forwarded-For` names the client (addresses or CIDR
   * ranges, comma-separated, e.g. "127.0.0.1,10.0.0.0/8"); the rate limit then
   * counts per forwarded address. Default none: the socket's address counts and
   * `X-Forwarded-For` is ignored (a client cannot dodge the limit by sending it).
   */
  readonly trustProxy?: string;
  /**
   * Directory of the operator console's built page, served at `/console/`
   * (default: the bundle shipped in this package's `dist/console`); false: no console.
   */
  readonly consoleDir?: string | false;
  /**
   * Protected mode (see tokens/routes.ts and docs/threat-model.md): every report
   * spends one Privacy Pass token issued per round by `tokens.attester`'s vouching,
   * which also fixes the report's view and id. Default: unprotected.
   */
  readonly tokens?: TokenProtection;
  /**
   * Per-report detection of crafted unary (OUE/SUE) reports: a report whose number
   * of ones an honest client sends with probability below this rate (two-sided,
   * exact; `unaryCountRule`) is acknowledged but not stored (`dropped` in the
   * answer, `unaryDropped` in round status), and unary estimates are re-based on
   * the kept reports' law so they stay unbiased. A number in (0, 0.5), or false
   * (off). Default: 0.01 in protected mode (`tokens`), off otherwise.
   */
  readonly unaryReportCheck?: number | false;
  /**
   * Structured logs (Fastify's pino logger, JSON lines): one per refused report
   * batch (`event: "batch-refused"`, its reason and reports), per storage state
   * change (`storage-lost`, `storage-back`) and per round opened or closed;
   * per-request lines at "debug" and "trace" only. Default false (off).
   */
  readonly logger?: boolean;
  /** Log level (trace, debug, info, warn, error, fatal, silent); giving one turns `logger` on. Default "info". */
  readonly logLevel?: string;
  /** Where log lines go (default stderr). */
  readonly logStream?: { write(line: string): unknown };
  /**
   * Serve `GET /metrics` (Prometheus text format) on the collector's own port
   * (default true); false when they are served elsewhere (`startCollector`'s
   * `metricsPort`, or `collectorMetrics(app)`).
   */
  readonly metricsRoute?: boolean;
  /**
   * Where the collector writes its operational lines: one when the storage becomes
   * unavailable (with the database's error) and one when it is back (default: stderr).
   */
  readonly log?: (line: string) => void;
}

/** The JSON body of every error answer. */
export interface ErrorBody {
  readonly statusCode: number;
  /** Machine-readable reason (`schema`, `unknown-view`, `round-not-found`, ...). */
  readonly reason: string;
  readonly message: string;
}

/** The answer of `GET /v1/rounds/:id/marginals`. */
export interface MarginalAnswer {
  readonly round: string;
  /** Attribute names of the query, ascending by attribute index. */
  readonly attrs: readonly string[];
  /** Their indices in the schema. */
  readonly attributes: readonly number[];
  readonly cardinalities: readonly number[];
  /** The estimated marginal: fractions, mixed radix with the first attribute most significant. */
  readonly cells: readonly number[];
  /** Reports counted. */
  readonly n: number;
  readonly eps: number;
  /** "projection" (a view covers the query) or "maxent" (maximum entropy over the views). */
  readonly method: "projection" | "maxent";
  /**
   * CALM's expected SSE of this answer (calm-core `expectedQuerySse`, noise plus
   * sampling) at the counted n, with the answer itself plugged in for the true
   * marginal; null when no view covers the query (no formula), nothing was counted,
   * or the estimator is "calm-plus" (no closed form).
   */
  readonly expectedSse: number | null;
  /** The estimator asked for with `?estimator=` ("calm", the default, or "calm-plus"). */
  readonly estimator: "calm" | "calm-plus";
  /** With `?interval=`: the confidence level asked for. */
  readonly level?: number;
  /** With `?interval=`: per cell, the interval's lower bound for the true fraction (clipped to [0, 1]). */
  readonly lower?: readonly number[];
  /** With `?interval=`: per cell, the upper bound (clipped to [0, 1]). */
  readonly upper?: readonly number[];
  /**
   * With `?interval=`: per cell, the standard error (calm-core `CalmIntervalTable`);
   * null on "bounds" intervals (a bound, not an estimate -+ z SE).
   */
  readonly standardError?: readonly (number | null)[];
  /**
   * With `?interval=`: "analytic" (a view covers the query) or "bounds" (maximum-entropy
   * answer: calm-core's conservative Fréchet-bound interval, sound whatever the true table).
   * The collector never runs the parametric bootstrap (~30x a point answer), so an
   * interval costs about one more answer either way.
   */
  readonly intervalMethod?: "analytic" | "bootstrap" | "bounds";
  /** With `?interval=`: bootstrap replicates (always 0 here: the collector does not bootstrap). */
  readonly replicates?: number;
  /**
   * With `?interval=`: the point each interval is built around (analytic: the
   * consistent linear estimate before non-negativity, so `cells` may differ from it
   * where non-negativity moved mass; bootstrap: `cells`).
   */
  readonly center?: readonly number[];
}
