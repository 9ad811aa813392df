import { isReportId } from "@calm-ldp/client";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { CollectorOptions, CollectorStorage, ErrorBody, StoredRound } from "./api.js";
import { bearerChecker } from "./auth.js";
import { registerCampaigns } from "./campaigns.js";
import type { CollectorContext, CollectorSettings } from "./collector-context.js";
import { registerConsole } from "./console-route.js";
import { CorsPolicy } from "./cors.js";
import { UNARY_REPORT_FALSE_POSITIVE_RATE } from "./defences/unary-report-check.js";
import {
  InvalidParameterError,
  RequestRejectedError,
  RoundClosedError,
  reject,
  StorageError,
} from "./errors.js";
import { registerHealth } from "./health.js";
import { registerListings } from "./listing-routes.js";
import { loggedRounds, loggerOptions, RequestLogsAtDebug } from "./logging.js";
import { attachMetrics, CollectorMetrics, registerMetricsRoute, reportsInBatch } from "./metrics.js";
import { registerOpenApi } from "./openapi.js";
import { RateLimiter } from "./rate-limit.js";
import { registerRounds } from "./round-routes.js";
import { PLAN_ROUTE, REPORTS_ROUTE } from "./schemas.js";
import { RETRY_AFTER_SECONDS, StorageHealth } from "./storage-health.js";
import { registerTokens } from "./tokens/routes.js";

/** Fastify's own client errors, by code: the collector's status and reason for each. */
const FASTIFY_ERRORS: Record<string, [number, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, "body-too-large"],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, "unsupported-media-type"],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, "malformed-body"],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, "malformed-json"],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, "malformed-json"],
};

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
 * - `GET /v1/rounds/:id/status` (admin): `{round, accepted, duplicates, rejected, perView, closedAt, idsDroppedAt, idsHeld, idsDropAfter}`;
 * - `POST /v1/rounds/:id/close` (admin): close the round -> 200 `{round, closedAt, idsDropAfter, idsDroppedAt}`;
 *   its counts stay, later reports get 409 `round-closed`, and `idRetentionMs`
 *   after closing a sweep (every max(250 ms, min(retention / 4, 60 s))) drops its report ids;
 * - `GET /v1/rounds/:id/marginals?attrs=a,b[&estimator=calm-plus][&interval=0.95]` (admin): the estimated
 *   marginal from the database's counts (see `MarginalAnswer`); `interval` (a level in (0, 1), estimator
 *   "calm" only, every view with reports; else 400) adds per-cell `lower`/`upper`/`standardError`;
 * - campaigns (one plan reused by a sequence of rounds, `registerCampaigns` in campaigns.ts):
 *   `POST /v1/campaigns`, `GET /v1/campaigns/:id`, `POST /v1/campaigns/:id/rounds`,
 *   `GET /v1/campaigns/:id/current` (public, CORS), `GET /v1/campaigns/:id/marginals?attrs=&from=&to=`;
 * - listings (admin, listing-routes.ts): `GET /v1/campaigns`, `GET /v1/rounds[?campaign=<id>|none]`;
 * - `GET /console/` (console-route.ts): the operator console, a static page reading the admin API
 *   with the token typed into it (same-origin only; `consoleDir: false` leaves it out);
 * - `GET /healthz` (liveness, never calls the database) and `GET /readyz`
 *   (readiness: the database answers, takes a write, has this schema version;
 *   else 503), both with `refused` (requests refused since start, by reason);
 *   see health.ts;
 * - `GET /metrics` (Prometheus, metrics.ts; unless `metricsRoute: false`) and
 *   `GET /openapi.json` (OpenAPI 3.1 from the routes' schemas, openapi.ts).
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
 *
 * Built in named steps: check the options, create the app and its shared context,
 * then the API description (before any route), metrics, error handling, rate
 * limit, preflights, health, the round routes (round-routes.ts), the campaign
 * routes (campaigns.ts) and the retention sweep. A further route group (the
 * operator console) registers after the campaigns, as they do, from its own file.
 */
export async function createCollector(options: CollectorOptions): Promise<FastifyInstance> {
  const settings = collectorSettings(options);
  const context = collectorContext(options, settings);
  await registerOpenApi(context.app, context.admin); // before any route, so that every route is described
  attachMetrics(context.app, context.metrics);
  handleErrors(context);
  if (options.rateLimit !== undefined) limitRate(context, options.rateLimit);
  answerPreflights(context);
  registerHealth(context);
  if (options.metricsRoute !== false) registerMetricsRoute(context.app, context.metrics);
  const gate = options.tokens ? registerTokens(context, options.tokens) : undefined;
  registerRounds(context, gate);
  registerCampaigns(context.app, {
    storage: context.storage,
    admin: context.admin,
    cors: context.cors,
    refusePreflight: context.refusePreflight,
    rounds: context.rounds,
    maxBatch: settings.maxBatch,
    maxQueryCells: settings.maxQueryCells,
    unaryReportAlpha: settings.unaryReportAlpha,
    now: () => new Date(),
  });
  registerListings(context);
  if (options.consoleDir !== false) registerConsole(context.app, options.consoleDir);
  sweepClosedRoundIds(context);
  return context.app;
}

/** Check the options (`InvalidParameterError` naming the first bad one) and fill in defaults. */
function collectorSettings(options: CollectorOptions): CollectorSettings {
  const { adminToken } = options;
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
  const check = options.unaryReportCheck ?? (options.tokens ? UNARY_REPORT_FALSE_POSITIVE_RATE : false);
  if (check !== false && !(typeof check === "number" && check > 0 && check < 0.5))
    throw new InvalidParameterError(
      `createCollector: unaryReportCheck must be a number in (0, 0.5) or false (got ${String(check)})`,
    );
  const unaryReportAlpha = check === false ? undefined : check;
  return { adminToken, maxBatch, bodyLimit, maxQueryCells, idRetentionMs, unaryReportAlpha };
}

/** The Fastify instance (JSON bodies only) and the shared state and helpers around it. */
function collectorContext(options: CollectorOptions, settings: CollectorSettings): CollectorContext {
  const app = Fastify({
    logger: loggerOptions(options),
    logController: new RequestLogsAtDebug(),
    bodyLimit: settings.bodyLimit,
    return503OnClosing: true,
    ...(options.trustProxy !== undefined ? { trustProxy: trustedProxies(options.trustProxy) } : {}),
    ajv: {
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false },
    },
  });
  const line = options.log ?? ((text: string) => process.stderr.write(`${text}\n`));
  let metrics: CollectorMetrics | undefined;
  const backend = options.storage.backend;
  const health = new StorageHealth(backend, line, (available, message) => {
    metrics?.storageChanged(available);
    if (available) app.log.info({ event: "storage-back", backend }, message);
    else app.log.error({ event: "storage-lost", backend }, message);
  });
  metrics = new CollectorMetrics(options.storage, () => health.available);
  const storage = watchedStorage(loggedRounds(options.storage, app), health);
  // Only JSON bodies: a text/plain body gets 415 rather than a string.
  app.removeContentTypeParser("text/plain");
  const checkToken = bearerChecker(settings.adminToken);
  const rounds = new Map<string, StoredRound>();
  const refusals = new Map<string, number>();
  const send = (reply: FastifyReply, statusCode: number, reason: string, message: string) => {
    const body: ErrorBody = { statusCode, reason, message };
    if (reason !== "storage-unavailable") refusals.set(reason, (refusals.get(reason) ?? 0) + 1);
    const { request } = reply;
    const reports = isReportBatch(request) ? reportsInBatch(request.body) : undefined;
    metrics.refused(request, reason, reports);
    if (reports !== undefined)
      request.log.info({ event: "batch-refused", statusCode, reason, reports }, "report batch refused");
    if (statusCode === 401) reply.header("www-authenticate", "Bearer");
    if (statusCode === 503) reply.header("retry-after", String(RETRY_AFTER_SECONDS));
    return reply.code(statusCode).type("application/json").send(body);
  };
  return {
    app,
    settings,
    storage,
    health,
    metrics,
    cors: new CorsPolicy(options.allowOrigins ?? []),
    rounds,
    refusals,
    findRound: async (id) => {
      let round = rounds.get(id);
      if (!round) {
        round = await storage.findRound(id);
        if (!round) reject(404, "round-not-found", "no round with this id");
        rounds.set(id, round);
      }
      return round;
    },
    admin: async (request) => {
      const verdict = checkToken(request.headers.authorization);
      if (verdict === "missing")
        reject(401, "missing-token", "this endpoint needs Authorization: Bearer <token>");
      if (verdict === "wrong") reject(403, "wrong-token", "the bearer token is not the admin token");
    },
    send,
    refusePreflight: (reply) =>
      send(
        reply,
        403,
        "cross-origin-refused",
        "cross-origin requests are allowed only to the plan and report endpoints, from the origins given with allowOrigins",
      ),
  };
}

/** Whether `request` posts a report batch (its refusals are counted per report). */
function isReportBatch(request: FastifyRequest): boolean {
  return request.method === "POST" && request.routeOptions.url === REPORTS_ROUTE;
}

/** An error as the collector answers it: status, reason and message. */
type Refusal = [statusCode: number, reason: string, message: string];

/**
 * The answer for an error a handler threw: a `RequestRejectedError` as it says,
 * a closed round 409, Fastify's schema and body errors 400/413/415, a
 * `StorageError` 503 (marking the storage unavailable), other 4xx as
 * `malformed-request`, anything else 500 without details.
 */
function refusalOf(
  context: CollectorContext,
  error: Error & { code?: string; validation?: unknown; statusCode?: number },
  request: FastifyRequest,
): Refusal {
  if (error instanceof RequestRejectedError) return [error.statusCode, error.reason, error.message];
  if (error instanceof RoundClosedError) return [409, "round-closed", error.message];
  if (error.validation) return [400, "schema", error.message];
  if (error.code !== undefined && FASTIFY_ERRORS[error.code])
    return [...FASTIFY_ERRORS[error.code]!, error.message];
  if (error instanceof StorageError) {
    context.health.failed(error.message, true);
    request.log.error(error);
    return [503, "storage-unavailable", "the database is unavailable; retry"];
  }
  if (typeof error.statusCode === "number" && error.statusCode >= 400 && error.statusCode < 500)
    return [error.statusCode, "malformed-request", error.message];
  request.log.error(error);
  return [500, "internal", "internal error"];
}

/**
 * Every error is JSON `{statusCode, reason, message}` (see `refusalOf`);
 * a refused report batch (4xx but 404 and 429) counts toward its round's
 * rejections when the round exists; unknown endpoints are 404 `not-found`.
 */
function handleErrors(context: CollectorContext): void {
  const { app, storage } = context;
  app.setErrorHandler(
    async (error: Error & { code?: string; validation?: unknown; statusCode?: number }, request, reply) => {
      const [statusCode, reason, message] = refusalOf(context, error, request);
      if (
        statusCode >= 400 &&
        statusCode < 500 &&
        statusCode !== 429 &&
        request.routeOptions.url === REPORTS_ROUTE
      ) {
        const id = (request.params as { id?: string }).id;
        if (isReportId(id) && statusCode !== 404) {
          try {
            const round = await context.findRound(id);
            await storage.countRejected(round, reason, reportsInBatch(request.body));
          } catch {
            // unknown or malformed round id: nothing to count
          }
        }
      }
      return context.send(reply, statusCode, reason, message);
    },
  );
  app.setNotFoundHandler((_request, reply) => context.send(reply, 404, "not-found", "no such endpoint"));
}

/**
 * The rate limit: a per-address token bucket checked before anything else, so a
 * refused request costs no body parsing and no database work; 429 `rate-limited`
 * with `Retry-After`, carrying CORS headers on browser endpoints.
 */
function limitRate(context: CollectorContext, rateLimit: NonNullable<CollectorOptions["rateLimit"]>): void {
  const { app, cors } = context;
  const limiter = new RateLimiter(rateLimit);
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
    await context.send(
      reply,
      429,
      "rate-limited",
      `too many requests from this address; retry after ${wait} s`,
    );
    return reply;
  });
}

/** Preflights: the two browser endpoints answer allowed origins; everything else is refused. */
function answerPreflights({ app, cors, refusePreflight }: CollectorContext): void {
  app.options(PLAN_ROUTE, (request, reply) =>
    cors.preflight(request, reply, "GET") ? reply.send() : refusePreflight(reply),
  );
  app.options(REPORTS_ROUTE, (request, reply) =>
    cors.preflight(request, reply, "POST") ? reply.send() : refusePreflight(reply),
  );
  app.options("*", (_request, reply) => refusePreflight(reply));
}

/**
 * The retention sweep, every max(250 ms, min(retention / 4, 60 s)): rounds
 * closed more than `idRetentionMs` ago lose their report ids (a failed sweep is
 * logged and retried at the next); closing the app waits for a running sweep.
 */
function sweepClosedRoundIds({ app, storage, settings }: CollectorContext): void {
  const { idRetentionMs } = settings;
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

export type { CollectorContext, CollectorSettings } from "./collector-context.js";
