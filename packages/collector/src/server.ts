import { isReportId, WIRE_FORMAT_VERSION } from "@calm-ldp/client";
import { CannotRunError } from "@calm-ldp/errors";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type {
  CollectorOptions,
  CollectorStorage,
  ErrorBody,
  MarginalAnswer,
  RoundCounts,
  RoundRequest,
  StoredRound,
} from "./api.js";
import { bearerChecker } from "./auth.js";
import { registerCampaigns, roundEstimateOptions } from "./campaigns.js";
import { CorsPolicy } from "./cors.js";
import { MAX_VIEW_CELLS, planRound } from "./create-round.js";
import {
  InvalidParameterError,
  RequestRejectedError,
  RoundClosedError,
  reject,
  StorageError,
} from "./errors.js";
import { type EstimatedMarginal, type Estimator, estimateMarginal } from "./estimate-marginal.js";
import { intervalLevel, queryAttributes } from "./query-attributes.js";
import { RateLimiter } from "./rate-limit.js";
import {
  MARGINALS_QUERY,
  PLAN_ROUTE,
  REPORTS_ROUTE,
  ROUND_BODY,
  ROUND_PARAMS,
  reportsBodySchema,
} from "./schemas.js";
import { RETRY_AFTER_SECONDS, StorageHealth } from "./storage-health.js";
import { validateBatch } from "./validate-batch.js";

/** Fastify's own client errors, by code: the collector's status and reason for each. */
const FASTIFY_ERRORS: Record<string, [number, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, "body-too-large"],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, "unsupported-media-type"],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, "malformed-body"],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, "malformed-json"],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, "malformed-json"],
};

type RoundParams = { id: string };

/** `trustProxy` checked: a non-empty list of IPv4/IPv6 addresses or CIDR ranges. */
function trustedProxies(list: string): string {
  const entries = typeof list === "string" ? list.split(",").map((entry) => entry.trim()) : [];
  const address = /^(\d{1,3}(\.\d{1,3}){3}|[0-9a-fA-F:]*:[0-9a-fA-F:.]*)(\/\d{1,3})?$/;
  if (entries.length === 0 || entries.some((entry) => !address.test(entry)))
    throw new InvalidParameterError(
      `createCollector: trustProxy must list proxy addresses or CIDR ranges, comma-separated (got ${JSON.stringify(list)})`,
    );
  return entries.join(",");
}

/** Default time a closed round keeps its report ids: one hour. */
export const DEFAULT_ID_RETENTION_MS = 3_600_000;

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  const result = value ?? fallback;
  if (!Number.isSafeInteger(result) || result < 1)
    throw new InvalidParameterError(`createCollector: ${name} must be an integer >= 1 (got ${value})`);
  return result;
}

/**
 * The collector's HTTP API as a Fastify instance (not yet listening):
 * - `POST /v1/rounds` (admin): plan a round from `{schema, eps, k, n, theta?}` -> 201 `{round, plan}`;
 * - `GET /v1/rounds/:id/plan`: `{round, wireFormat, maxBatch, closedAt, plan}`, what clients need
 *   (`closedAt` null while the round takes reports);
 * - `POST /v1/rounds/:id/reports`: `{round, reports}`, validated strictly, all or
 *   nothing (JSON schema, then the wire format and the view oracle's own check);
 *   answered 200 `{acknowledged, stored, duplicates}` only after the storage
 *   committed; a report id seen before is acknowledged but not counted again;
 * - `GET /v1/rounds/:id/status` (admin): `{round, accepted, duplicates, rejected, perView, closedAt, idsDroppedAt, idsHeld}`;
 * - `POST /v1/rounds/:id/close` (admin): close the round -> 200 `{round, closedAt, idsDropAfter, idsDroppedAt}`;
 *   its counts stay, later reports get 409 `round-closed`, and `idRetentionMs`
 *   after closing a sweep (every max(250 ms, min(retention / 4, 60 s))) drops its report ids;
 * - `GET /v1/rounds/:id/marginals?attrs=a,b[&estimator=calm-plus][&interval=0.95]` (admin): the estimated
 *   marginal from the database's counts (see `MarginalAnswer`); `interval` (a level in (0, 1), estimator
 *   "calm" only, every view with reports; else 400) adds per-cell `lower`/`upper`/`standardError`;
 * - campaigns (one plan reused by a sequence of rounds, `registerCampaigns` in campaigns.ts):
 *   `POST /v1/campaigns`, `GET /v1/campaigns/:id`, `POST /v1/campaigns/:id/rounds`,
 *   `GET /v1/campaigns/:id/current` (public, CORS), `GET /v1/campaigns/:id/marginals?attrs=&from=&to=`;
 * - `GET /healthz`: 200 `{status: "ok", storage, refused}` (`refused`: requests refused
 *   since start, by reason: `rate-limited`, `schema`, `not-found`, ...) when the database answers
 *   (and, after a failed write, commits again), else 503 `{status: "unavailable",
 *   storage: "unavailable", backend, reason: "storage-unavailable", message}`.
 * While the database is away (a storage call failed with `StorageError`: PostgreSQL
 * restarting, a dropped connection, a full or read-only disk under DuckDB, a
 * ClickHouse shard down) every request that needs it is answered 503
 * `storage-unavailable` with `Retry-After`, nothing is acknowledged, and the
 * collector resumes by itself once a storage call succeeds again; one log line
 * marks each change (`log`, default stderr) and `refused` counts those answers.
 * Rate limit (`rateLimit`, default none): per client address, a token bucket over
 * every endpoint; a request finding it empty gets 429 `rate-limited` with
 * `Retry-After`, before its body is read.
 * CORS (`allowOrigins`, default none): only the plan and report endpoints answer
 * a preflight (`OPTIONS`, 204) and carry `Access-Control-Allow-Origin: <origin>`,
 * for exactly the allowed origins (never `*`); every other preflight is refused
 * (403 `cross-origin-refused`, no allow header) and admin endpoints never carry
 * CORS headers.
 * Admin routes need `Authorization: Bearer <adminToken>` (401 when missing, 403
 * when wrong; compared in constant time). Every error is JSON `{statusCode,
 * reason, message}` without stack traces; refused report batches are counted
 * per reason in the round's status.
 */
export async function createCollector(options: CollectorOptions): Promise<FastifyInstance> {
  const { adminToken } = options;
  const health = new StorageHealth(
    options.storage.backend,
    options.log ?? ((line) => process.stderr.write(`${line}\n`)),
  );
  const storage = watchedStorage(options.storage, health);
  if (typeof adminToken !== "string" || adminToken.length < 16)
    throw new InvalidParameterError("createCollector: adminToken must be a string of at least 16 characters");
  const maxBatch = positiveInteger("maxBatch", options.maxBatch, 1000);
  const bodyLimit = positiveInteger("bodyLimit", options.bodyLimit, 1 << 20);
  const maxQueryCells = positiveInteger("maxQueryCells", options.maxQueryCells, 1 << 20);
  const idRetentionMs = options.idRetentionMs ?? DEFAULT_ID_RETENTION_MS;
  if (!Number.isSafeInteger(idRetentionMs) || idRetentionMs < 0)
    throw new InvalidParameterError(
      `createCollector: idRetentionMs must be an integer >= 0 (got ${options.idRetentionMs})`,
    );
  const checkToken = bearerChecker(adminToken);
  const cors = new CorsPolicy(options.allowOrigins ?? []);
  const rounds = new Map<string, StoredRound>();

  const app = Fastify({
    logger: options.logger ? { level: "info" } : false,
    bodyLimit,
    return503OnClosing: true,
    ...(options.trustProxy !== undefined ? { trustProxy: trustedProxies(options.trustProxy) } : {}),
    ajv: {
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false },
    },
  });
  // Only JSON bodies: a text/plain body gets 415 rather than a string.
  app.removeContentTypeParser("text/plain");

  const findRound = async (id: string): Promise<StoredRound> => {
    let round = rounds.get(id);
    if (!round) {
      round = await storage.findRound(id);
      if (!round) reject(404, "round-not-found", "no round with this id");
      rounds.set(id, round);
    }
    return round;
  };

  const admin = async (request: FastifyRequest): Promise<void> => {
    const verdict = checkToken(request.headers.authorization);
    if (verdict === "missing")
      reject(401, "missing-token", "this endpoint needs Authorization: Bearer <token>");
    if (verdict === "wrong") reject(403, "wrong-token", "the bearer token is not the admin token");
  };

  // Refused requests since start, by reason (storage-unavailable is counted by `health`).
  const refusals = new Map<string, number>();
  const send = (reply: FastifyReply, statusCode: number, reason: string, message: string) => {
    const body: ErrorBody = { statusCode, reason, message };
    if (reason !== "storage-unavailable") refusals.set(reason, (refusals.get(reason) ?? 0) + 1);
    if (statusCode === 401) reply.header("www-authenticate", "Bearer");
    if (statusCode === 503) reply.header("retry-after", String(RETRY_AFTER_SECONDS));
    return reply.code(statusCode).type("application/json").send(body);
  };

  app.setErrorHandler(
    async (error: Error & { code?: string; validation?: unknown; statusCode?: number }, request, reply) => {
      let statusCode = 500;
      let reason = "internal";
      let message = "internal error";
      if (error instanceof RequestRejectedError) {
        ({ statusCode, reason, message } = error);
      } else if (error instanceof RoundClosedError) {
        [statusCode, reason, message] = [409, "round-closed", error.message];
      } else if (error.validation) {
        [statusCode, reason, message] = [400, "schema", error.message];
      } else if (error.code !== undefined && FASTIFY_ERRORS[error.code]) {
        [statusCode, reason] = FASTIFY_ERRORS[error.code]!;
        message = error.message;
      } else if (error instanceof StorageError) {
        [statusCode, reason, message] = [503, "storage-unavailable", "the database is unavailable; retry"];
        health.failed(error.message, true);
        request.log.error(error);
      } else if (typeof error.statusCode === "number" && error.statusCode >= 400 && error.statusCode < 500) {
        [statusCode, reason, message] = [error.statusCode, "malformed-request", error.message];
      } else {
        request.log.error(error);
      }
      // A refused report batch counts toward its round's rejections (when the round exists).
      if (
        statusCode >= 400 &&
        statusCode < 500 &&
        statusCode !== 429 &&
        request.routeOptions.url === REPORTS_ROUTE
      ) {
        const id = (request.params as Partial<RoundParams>).id;
        if (isReportId(id) && statusCode !== 404) {
          try {
            const round = await findRound(id);
            const body = request.body as { reports?: unknown } | undefined;
            const count = Array.isArray(body?.reports) ? Math.max(1, body.reports.length) : 1;
            await storage.countRejected(round, reason, count);
          } catch {
            // unknown or malformed round id: nothing to count
          }
        }
      }
      return send(reply, statusCode, reason, message);
    },
  );

  app.setNotFoundHandler((_request, reply) => send(reply, 404, "not-found", "no such endpoint"));

  // Per-address rate limit (off unless options.rateLimit): before anything else, so a
  // refused request costs no body parsing and no database work.
  if (options.rateLimit !== undefined) {
    const limiter = new RateLimiter(options.rateLimit);
    const prune = setInterval(() => limiter.prune(), 10_000);
    prune.unref();
    app.addHook("onClose", async () => clearInterval(prune));
    app.addHook("onRequest", async (request, reply) => {
      const wait = limiter.take(request.ip);
      if (wait === 0) return;
      // A page on an allowed origin must be able to read the 429 of a browser endpoint
      // (one with its own preflight route: plan, reports, a campaign's current round).
      const route = request.routeOptions.url;
      if (
        request.method !== "OPTIONS" &&
        route !== undefined &&
        route !== "*" &&
        app.hasRoute({ method: "OPTIONS", url: route })
      )
        await cors.decorate(request, reply);
      reply.header("retry-after", String(wait));
      await send(reply, 429, "rate-limited", `too many requests from this address; retry after ${wait} s`);
      return reply;
    });
  }

  // Preflights: the two browser endpoints answer allowed origins; everything else is refused.
  const refusePreflight = (reply: FastifyReply) =>
    send(
      reply,
      403,
      "cross-origin-refused",
      "cross-origin requests are allowed only to the plan and report endpoints, from the origins given with allowOrigins",
    );
  app.options(PLAN_ROUTE, (request, reply) =>
    cors.preflight(request, reply, "GET") ? reply.send() : refusePreflight(reply),
  );
  app.options(REPORTS_ROUTE, (request, reply) =>
    cors.preflight(request, reply, "POST") ? reply.send() : refusePreflight(reply),
  );
  app.options("*", (_request, reply) => refusePreflight(reply));

  const refusedByReason = () => ({
    ...Object.fromEntries([...refusals].sort(([a], [b]) => (a < b ? -1 : 1))),
    "storage-unavailable": health.refused,
  });
  app.get("/healthz", async (_request, reply) => {
    try {
      await storage.ping();
    } catch (error) {
      if (!(error instanceof StorageError)) throw error;
      return reply
        .code(503)
        .header("retry-after", String(RETRY_AFTER_SECONDS))
        .send({
          statusCode: 503,
          reason: "storage-unavailable",
          message: `the database is unavailable: ${error.message}`,
          status: "unavailable",
          storage: "unavailable",
          backend: storage.backend,
          refused: refusedByReason(),
        });
    }
    return { status: "ok", storage: storage.backend, refused: refusedByReason() };
  });

  app.post<{ Body: RoundRequest }>(
    "/v1/rounds",
    { onRequest: admin, schema: { body: ROUND_BODY } },
    async (request, reply) => {
      const round = await storage.createRound(planRound(request.body));
      rounds.set(round.id, round);
      return reply.code(201).send({ round: round.id, plan: round.plan });
    },
  );

  app.get<{ Params: RoundParams }>(
    PLAN_ROUTE,
    { onRequest: cors.decorate, schema: { params: ROUND_PARAMS } },
    async (request) => {
      const round = await findRound(request.params.id);
      const { closedAt } = await storage.roundState(round);
      return { round: round.id, wireFormat: WIRE_FORMAT_VERSION, maxBatch, closedAt, plan: round.plan };
    },
  );

  app.post<{ Params: RoundParams; Body: { round: string; reports: [] } }>(
    REPORTS_ROUTE,
    {
      onRequest: cors.decorate,
      schema: {
        params: ROUND_PARAMS,
        body: reportsBodySchema(4 * Math.ceil(Math.ceil(MAX_VIEW_CELLS / 8) / 3)),
      },
      // Before the schema: an oversized batch is 413, not a schema error.
      preValidation: async (request) => {
        const reports = (request.body as { reports?: unknown } | null)?.reports;
        if (Array.isArray(reports) && reports.length > maxBatch)
          reject(413, "batch-too-large", `at most ${maxBatch} reports per batch (got ${reports.length})`);
      },
    },
    async (request) => {
      const round = await findRound(request.params.id);
      const accepted = validateBatch(round.id, round.plan, request.body);
      const result = await storage.storeReports(round, accepted);
      return { acknowledged: accepted.length, stored: result.stored, duplicates: result.duplicates };
    },
  );

  app.get<{ Params: RoundParams }>(
    "/v1/rounds/:id/status",
    { onRequest: admin, schema: { params: ROUND_PARAMS } },
    async (request) => {
      const round = await findRound(request.params.id);
      const counts: RoundCounts = await storage.counts(round);
      const [state, idsHeld] = await Promise.all([storage.roundState(round), storage.heldIds(round)]);
      return { round: round.id, ...counts, ...state, idsHeld };
    },
  );

  const dropAfter = (closedAt: string) => new Date(Date.parse(closedAt) + idRetentionMs).toISOString();
  app.post<{ Params: RoundParams }>(
    "/v1/rounds/:id/close",
    { onRequest: admin, schema: { params: ROUND_PARAMS } },
    async (request) => {
      const round = await findRound(request.params.id);
      const state = await storage.closeRound(round, new Date());
      request.log.info({ round: round.id, closedAt: state.closedAt }, "round closed");
      return {
        round: round.id,
        closedAt: state.closedAt,
        idsDropAfter: dropAfter(state.closedAt!),
        idsDroppedAt: state.idsDroppedAt,
      };
    },
  );

  // Campaigns: one plan, a sequence of rounds (campaigns.ts).
  registerCampaigns(app, {
    storage,
    admin,
    cors,
    refusePreflight,
    rounds,
    maxBatch,
    maxQueryCells,
    now: () => new Date(),
  });

  // The retention sweep: rounds closed more than idRetentionMs ago lose their report ids.
  const sweepEvery = Math.max(250, Math.min(Math.floor(idRetentionMs / 4), 60_000));
  let sweeping: Promise<void> | undefined;
  const sweep = () => {
    sweeping ??= (async () => {
      try {
        const now = Date.now();
        const dropped = await storage.dropClosedIds(new Date(now - idRetentionMs), new Date(now));
        if (dropped.length > 0) app.log.info({ rounds: dropped }, "report ids of closed rounds dropped");
      } catch (error) {
        app.log.error(error, "dropping the report ids of closed rounds failed; retrying at the next sweep");
      } finally {
        sweeping = undefined;
      }
    })();
    return sweeping;
  };
  const timer = setInterval(sweep, sweepEvery);
  timer.unref();
  app.addHook("onClose", async () => {
    clearInterval(timer);
    await sweeping;
  });

  app.get<{ Params: RoundParams; Querystring: { attrs: string; estimator?: Estimator; interval?: string } }>(
    "/v1/rounds/:id/marginals",
    { onRequest: admin, schema: { params: ROUND_PARAMS, querystring: MARGINALS_QUERY } },
    async (request): Promise<MarginalAnswer> => {
      const round = await findRound(request.params.id);
      const { plan } = round;
      const attributes = queryAttributes(plan, request.query.attrs, maxQueryCells);
      const estimator = request.query.estimator ?? "calm";
      const level = intervalLevel(request.query.interval);
      const options = roundEstimateOptions(round); // a campaign round's instantaneous layer, if any
      if (level !== undefined && estimator !== "calm")
        reject(
          400,
          "interval-unavailable",
          `interval: intervals are available for the "calm" estimator only (${estimator} has no variance model)`,
        );
      if (level !== undefined && options.instantEps !== undefined)
        reject(
          400,
          "interval-unavailable",
          "interval: not available for a campaign round de-biased with its instantaneous layer (no variance model)",
        );
      const counts = await storage.supportCounts(round);
      let answer: EstimatedMarginal;
      try {
        answer = estimateMarginal(plan, counts, attributes, options, estimator, level);
      } catch (error) {
        if (level !== undefined && error instanceof CannotRunError)
          reject(400, "interval-unavailable", `interval: ${error.message}`);
        throw error;
      }
      const interval = answer.interval;
      return {
        round: round.id,
        attrs: attributes.map((a) => plan.schema.attributes[a]!.name),
        attributes,
        cardinalities: [...answer.table.cardinalities],
        cells: Array.from(answer.table.cells),
        n: answer.n,
        eps: plan.eps,
        method: answer.method,
        expectedSse: options.instantEps === undefined ? answer.expectedSse : null,
        estimator: answer.estimator,
        ...(interval === undefined
          ? {}
          : {
              level: interval.level,
              lower: Array.from(interval.lower),
              upper: Array.from(interval.upper),
              standardError: Array.from(interval.standardError, (se) => (Number.isNaN(se) ? null : se)),
              intervalMethod: interval.intervalMethod,
              replicates: interval.replicates,
              center: Array.from(interval.center),
            }),
      };
    },
  );

  return app;
}

/**
 * `storage` whose every call reports its outcome to `health`: success marks the
 * storage available, a `StorageError` unavailable (other errors are not about
 * the database). O(1) per call.
 */
function watchedStorage(storage: CollectorStorage, health: StorageHealth): CollectorStorage {
  const watch = <T>(promise: Promise<T>): Promise<T> =>
    promise.then(
      (value) => {
        health.succeeded();
        return value;
      },
      (error: unknown) => {
        if (error instanceof StorageError) health.failed(error.message, false);
        throw error;
      },
    );
  // Every method but close (present and future ones alike) goes through `watch`.
  return new Proxy(storage, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== "function") return value;
      if (key === "close") return value.bind(target);
      return (...args: unknown[]) => {
        const result: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        return result instanceof Promise ? watch(result) : result;
      };
    },
  });
}
