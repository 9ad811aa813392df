import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { CollectorStorage, GroupCommitListener, RoundState, RoundTotals, StoreResult } from "./api.js";
import { roundReadsOf } from "./round-reads.js";

/** Bucket bounds of the request latency histogram, in seconds (1 ms .. 10 s). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];
/** Bucket bounds of the group-commit size histogram, in reports (1 .. 50,000). */
const GROUP_SIZE_BUCKETS = [1, 10, 100, 500, 1000, 2500, 5000, 10_000, 25_000, 50_000];
/** Round gauges (open rounds, held ids) are recomputed from the storage at most this often. */
export const ROUND_GAUGES_TTL_MS = 5000;

/** Reports in a batch's body, as refusals count them: its array's length, at least 1 (1 when unread). */
export function reportsInBatch(body: unknown): number {
  const reports = (body as { reports?: unknown } | null | undefined)?.reports;
  return Array.isArray(reports) ? Math.max(1, reports.length) : 1;
}

/** The route label of a request: its route pattern (never an id), "unmatched" for unknown URLs. */
function routeOf(request: FastifyRequest): string {
  const url = request.routeOptions.url;
  return url === undefined || url === "*" ? "unmatched" : url;
}

/**
 * A collector's Prometheus metrics, in its own `Registry` (never prom-client's
 * global one, so collectors in one process keep apart). Labels are
 * low-cardinality: route pattern, method, status, reason, backend, outcome;
 * never a round or report id (per-round counts are the round's `status`).
 * Updating a counter is O(labels); a scrape is O(metrics) plus, at most every
 * ROUND_GAUGES_TTL_MS, one storage pass over the rounds whose ids are not yet
 * dropped (`listRounds`, then `roundState` and `heldIds` per such round).
 * A class because it is state.
 */
export class CollectorMetrics {
  readonly registry = new Registry();
  readonly #requests: Counter<"route" | "method" | "status">;
  readonly #latency: Histogram<"route" | "method">;
  readonly #refusedRequests: Counter<"route" | "reason">;
  readonly #reports: Counter<"outcome">;
  readonly #refusedReports: Counter<"reason">;
  readonly #refusedBatches: Counter<"reason">;
  readonly #groupSize: Histogram<"backend">;
  readonly #groupSeconds: Histogram<"backend" | "outcome">;
  readonly #storageChanges: Counter<"backend" | "state">;
  readonly #ledgerPrunes: Counter;
  readonly #ledgerPruned: Counter;
  readonly #backend: string;

  /** `roundGaugesTtlMs`: how long the storage-read gauges are reused (default ROUND_GAUGES_TTL_MS; 0: every scrape). */
  constructor(storage: CollectorStorage, isAvailable: () => boolean, roundGaugesTtlMs = ROUND_GAUGES_TTL_MS) {
    const registers = [this.registry];
    const backend = storage.backend;
    this.#backend = backend;
    this.#requests = new Counter({
      name: "calm_collector_http_requests_total",
      help: "HTTP requests answered, by route pattern, method and status code",
      labelNames: ["route", "method", "status"],
      registers,
    });
    this.#latency = new Histogram({
      name: "calm_collector_http_request_duration_seconds",
      help: "Time from receiving a request to sending its answer, by route pattern and method",
      labelNames: ["route", "method"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.#refusedRequests = new Counter({
      name: "calm_collector_requests_refused_total",
      help: "Requests answered with an error body, by route pattern and reason",
      labelNames: ["route", "reason"],
      registers,
    });
    this.#reports = new Counter({
      name: "calm_collector_reports_total",
      help: "Reports acknowledged: stored for the first time, duplicates of a stored report id, or dropped (the unary check)",
      labelNames: ["outcome"],
      registers,
    });
    this.#refusedReports = new Counter({
      name: "calm_collector_reports_refused_total",
      help: "Reports in refused batches, by reason (a batch whose reports were not read counts 1)",
      labelNames: ["reason"],
      registers,
    });
    this.#refusedBatches = new Counter({
      name: "calm_collector_report_batches_refused_total",
      help: "Report batches (POST .../reports) refused, by reason",
      labelNames: ["reason"],
      registers,
    });
    this.#groupSize = new Histogram({
      name: "calm_collector_group_commit_size",
      help: "Reports (or jobs) committed together in one group commit",
      labelNames: ["backend"],
      buckets: GROUP_SIZE_BUCKETS,
      registers,
    });
    this.#groupSeconds = new Histogram({
      name: "calm_collector_group_commit_duration_seconds",
      help: "Duration of one group commit, by outcome (committed, failed)",
      labelNames: ["backend", "outcome"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    new Gauge({
      name: "calm_collector_storage_available",
      help: "1 while the storage answers, 0 after a storage call failed until one succeeds again",
      labelNames: ["backend"],
      registers,
      collect() {
        this.set({ backend }, isAvailable() ? 1 : 0);
      },
    });
    this.#storageChanges = new Counter({
      name: "calm_collector_storage_state_changes_total",
      help: "Times the storage became unavailable (state=lost) or available again (state=back)",
      labelNames: ["backend", "state"],
      registers,
    });
    this.#ledgerPrunes = new Counter({
      name: "calm_collector_token_ledger_prunes_total",
      help: "Scheduled prunes of the token issuer's quota ledger run (protected mode, issuer inside)",
      registers,
    });
    this.#ledgerPruned = new Counter({
      name: "calm_collector_token_ledger_windows_pruned_total",
      help: "Quota-ledger windows dropped by scheduled prunes (closed or removed rounds)",
      registers,
    });
    new RoundGauges(storage, registers, roundGaugesTtlMs);
    storage.observeGroupCommits?.((group) => this.groupCommitted(group));
  }

  /** A request was answered (onResponse): its status and latency. O(1). */
  answered(request: FastifyRequest, reply: FastifyReply): void {
    const route = routeOf(request);
    this.#requests.inc({ route, method: request.method, status: String(reply.statusCode) });
    this.#latency.observe({ route, method: request.method }, reply.elapsedTime / 1000);
  }

  /** A request was refused with `reason`; a report batch among them counts its `reports`. */
  refused(request: FastifyRequest, reason: string, reports: number | undefined): void {
    this.#refusedRequests.inc({ route: routeOf(request), reason });
    if (reports === undefined) return;
    this.#refusedBatches.inc({ reason });
    this.#refusedReports.inc({ reason }, reports);
  }

  /** A batch was stored (committed). */
  stored(result: StoreResult): void {
    this.#reports.inc({ outcome: "stored" }, result.stored);
    this.#reports.inc({ outcome: "duplicate" }, result.duplicates);
  }

  groupCommitted({ size, seconds, failed }: Parameters<GroupCommitListener>[0]): void {
    this.#groupSize.observe({ backend: this.#backend }, size);
    this.#groupSeconds.observe({ backend: this.#backend, outcome: failed ? "failed" : "committed" }, seconds);
  }

  /** The per-report unary check dropped `reports` of a batch (acknowledged, not stored). */
  dropped(reports: number): void {
    this.#reports.inc({ outcome: "dropped" }, reports);
  }

  /** A scheduled prune of the token quota ledger dropped `windows` windows (tokens/ledger-prune.ts). */
  ledgerPruned(windows: number): void {
    this.#ledgerPrunes.inc();
    this.#ledgerPruned.inc(windows);
  }

  /** The storage was lost (`available` false) or came back. */
  storageChanged(available: boolean): void {
    this.#storageChanges.inc({ backend: this.#backend, state: available ? "back" : "lost" });
  }

  /** The exposition text (Prometheus text format 0.0.4) and its content type. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

type RoundValues = RoundTotals;

/**
 * Gauges read from the storage: rounds, open rounds, report ids held. Read at
 * the first scrape, then refreshed in the background when older than the TTL
 * (a scrape never waits for the storage again: it shows the last values, at
 * most one TTL plus one refresh old). One refresh at a time: `roundTotals` (one
 * statement on DuckDB and PostgreSQL; counting the held rows is O(held rows) on
 * PostgreSQL, O(1) on DuckDB) or, for a storage without it, `listRounds` then
 * `roundState` and `heldIds` per round whose ids are kept. A failing storage
 * leaves the last values (the availability gauge tells).
 */
class RoundGauges {
  readonly #storage: CollectorStorage;
  readonly #ttlMs: number;
  /** Numbers of rounds closed with their ids dropped (final: never read again). */
  readonly #final = new Set<number>();
  #values: RoundValues = { rounds: 0, open: 0, held: 0 };
  #at: number | undefined;
  #refreshing: Promise<void> | undefined;

  constructor(storage: CollectorStorage, registers: Registry[], ttlMs: number) {
    this.#storage = storage;
    this.#ttlMs = ttlMs;
    const gauges = this;
    const gauge = (name: string, help: string, pick: (v: RoundValues) => number) =>
      new Gauge({
        name,
        help,
        registers,
        async collect() {
          this.set(pick(await gauges.current()));
        },
      });
    gauge("calm_collector_rounds", "Rounds stored (campaign definitions included)", (v) => v.rounds);
    gauge("calm_collector_open_rounds", "Rounds taking reports (not closed)", (v) => v.open);
    gauge(
      "calm_collector_held_report_ids",
      "Report ids held (rows of rounds whose ids are kept)",
      (v) => v.held,
    );
  }

  /** The values: read at the first call; later calls start a refresh when stale but do not wait for it. */
  async current(): Promise<RoundValues> {
    if (this.#at === undefined || Date.now() - this.#at >= this.#ttlMs) {
      this.#refreshing ??= this.#refresh().finally(() => {
        this.#refreshing = undefined;
      });
      if (this.#at === undefined || this.#ttlMs === 0) await this.#refreshing;
    }
    return this.#values;
  }

  async #refresh(): Promise<void> {
    try {
      this.#values = this.#storage.roundTotals ? await this.#storage.roundTotals() : await this.#perRound();
    } catch {
      // storage away: keep the last values; calm_collector_storage_available says so
    }
    this.#at = Date.now();
  }

  async #perRound(): Promise<RoundValues> {
    if (!this.#storage.listRounds) return this.#values;
    const rounds = await this.#storage.listRounds();
    let open = 0;
    let held = 0;
    const pending = rounds.filter((round) => !this.#final.has(round.no));
    // A storage with batched reads answers every round's state and held ids in a few queries.
    const statuses = this.#storage.roundReads
      ? await roundReadsOf(this.#storage).statuses(pending)
      : undefined;
    for (const [i, round] of pending.entries()) {
      const state: RoundState = statuses?.[i]?.state ?? (await this.#storage.roundState(round));
      if (state.closedAt === null) open++;
      if (state.idsDroppedAt !== null) this.#final.add(round.no);
      else held += statuses?.[i]?.idsHeld ?? (await this.#storage.heldIds(round));
    }
    return { rounds: rounds.length, open, held };
  }
}

/** The metrics of each collector app (see `collectorMetrics`). */
const byApp = new WeakMap<FastifyInstance, CollectorMetrics>();

/** @internal Attach `metrics` to `app` (createCollector). */
export function attachMetrics(app: FastifyInstance, metrics: CollectorMetrics): void {
  byApp.set(app, metrics);
  app.addHook("onResponse", async (request, reply) => metrics.answered(request, reply));
}

/**
 * The metrics of a collector made by `createCollector`, e.g. to serve them on
 * another port (`startCollector`'s `metricsPort`) or to read them in a test.
 */
export function collectorMetrics(app: FastifyInstance): CollectorMetrics {
  const metrics = byApp.get(app);
  if (!metrics) throw new TypeError("collectorMetrics: not an app made by createCollector");
  return metrics;
}

/** `GET /metrics` on `app`: the exposition text of `metrics`. */
export function registerMetricsRoute(app: FastifyInstance, metrics: CollectorMetrics): void {
  app.get(
    "/metrics",
    {
      schema: {
        summary: "Prometheus metrics (text format 0.0.4)",
        response: { 200: { description: "Prometheus exposition text", type: "string" } },
      },
    },
    async (_request, reply) => {
      const { contentType, body } = await metrics.scrape();
      return reply.type(contentType).send(body);
    },
  );
}
