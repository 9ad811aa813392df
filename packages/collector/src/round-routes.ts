import { WIRE_FORMAT_VERSION } from "@calm-ldp/client";
import { CannotRunError } from "@calm-ldp/errors";
import type { MarginalAnswer, RoundCounts, RoundRequest } from "./api.js";
import { roundEstimateOptions } from "./campaigns.js";
import type { CollectorContext } from "./collector-context.js";
import { MAX_VIEW_CELLS, planRound } from "./create-round.js";
import { unaryOnesFlags } from "./defences/unary-ones.js";
import { estimationCounts, unaryCheckAlpha, unaryReportCheck } from "./defences/unary-report-check.js";
import { viewBalanceFlags } from "./defences/view-balance.js";
import { droppedReports, UNARY_DROP_REASON } from "./dropped-reports.js";
import { reject } from "./errors.js";
import {
  type EstimatedMarginal,
  type Estimator,
  estimateMarginal,
  intervalFields,
} from "./estimate-marginal.js";
import { idsDropAfter } from "./listing-routes.js";
import { marginalQuery } from "./query-attributes.js";
import {
  MARGINALS_QUERY,
  PLAN_ROUTE,
  REPORTS_ROUTE,
  ROUND_BODY,
  ROUND_PARAMS,
  reportsBodySchema,
} from "./schemas.js";
import type { ReportGate } from "./tokens/routes.js";
import { validateBatch } from "./validate-batch.js";

type RoundParams = { id: string };

/**
 * The round endpoints of `createCollector`: create (admin), plan (public, CORS),
 * reports (public, CORS; in protected mode each report's token checked by `gate`; 413 before the schema for an oversized batch, 200 only
 * after the storage committed), status, close and marginals (admin).
 */
export function registerRounds(context: CollectorContext, gate?: ReportGate): void {
  const { app, storage, admin, cors, findRound, rounds } = context;
  const { maxBatch, idRetentionMs } = context.settings;
  // Unary reports dropped by the per-report count test: in the storage's counters (dropped-reports.ts).
  const dropped = droppedReports(storage);

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
      const tag = round.request.campaign;
      // A campaign round names its campaign (a separate token issuer needs it; see tokens/issuer-rounds.ts).
      const campaign = tag?.role === "round" ? { campaign: tag.id } : {};
      return {
        round: round.id,
        wireFormat: WIRE_FORMAT_VERSION,
        maxBatch,
        closedAt,
        plan: round.plan,
        ...campaign,
      };
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
      const unaryReportAlpha = unaryCheckAlpha(round, context.settings.unaryReportAlpha);
      await gate?.(round, request.body.reports as readonly { id: string; view: number; token?: string }[]); // protected mode: each report spends a valid token
      // Crafted unary reports (implausible number of ones) are acknowledged, not stored.
      const check =
        unaryReportAlpha === undefined ? undefined : unaryReportCheck(round.plan, accepted, unaryReportAlpha);
      // The kept ones stored and the dropped ones counted (one transaction where the storage can).
      const result = check
        ? await dropped.store(round, check.kept, UNARY_DROP_REASON, check.dropped)
        : await storage.storeReports(round, accepted);
      if (check?.dropped.length) context.metrics.dropped(check.dropped.length);
      context.metrics.stored(result);
      return {
        acknowledged: accepted.length,
        stored: result.stored,
        duplicates: result.duplicates,
        ...(check ? { dropped: check.dropped.length } : {}),
      };
    },
  );

  app.get<{ Params: RoundParams }>(
    "/v1/rounds/:id/status",
    { onRequest: admin, schema: { params: ROUND_PARAMS } },
    async (request) => {
      const round = await findRound(request.params.id);
      const unaryReportAlpha = unaryCheckAlpha(round, context.settings.unaryReportAlpha);
      const counts: RoundCounts = await storage.counts(round);
      const [state, idsHeld] = await Promise.all([storage.roundState(round), storage.heldIds(round)]);
      // Statistical flags (defences/): views off their expected share; unary views' ones off honest.
      const unary = round.plan.views.some((view) => view.oracle === "oue" || view.oracle === "sue");
      const support = unary ? await storage.supportCounts(round) : undefined;
      const flags = [
        ...viewBalanceFlags(counts.perView),
        ...(support
          ? unaryOnesFlags(round.plan, support.support, support.reportsPerView, undefined, unaryReportAlpha)
          : []),
      ];
      return {
        round: round.id,
        ...counts,
        ...state,
        idsHeld,
        idsDropAfter: idsDropAfter(state.closedAt, idRetentionMs),
        flags,
        ...(unaryReportAlpha === undefined
          ? {}
          : { unaryDropped: { ...dropped.of(round, counts, UNARY_DROP_REASON), alpha: unaryReportAlpha } }),
      };
    },
  );

  app.post<{ Params: RoundParams }>(
    "/v1/rounds/:id/close",
    { onRequest: admin, schema: { params: ROUND_PARAMS } },
    async (request) => {
      const round = await findRound(request.params.id);
      const state = await storage.closeRound(round, new Date());
      return {
        round: round.id,
        closedAt: state.closedAt,
        idsDropAfter: idsDropAfter(state.closedAt, idRetentionMs),
        idsDroppedAt: state.idsDroppedAt,
      };
    },
  );

  registerMarginals(context);
}

/**
 * `GET /v1/rounds/:id/marginals?attrs=a,b[&estimator=calm-plus][&interval=0.95]`
 * (admin): the marginal estimated from the database's counts (`estimateMarginal`);
 * an interval the estimate cannot give (a view without reports) is 400
 * `interval-unavailable` with calm-core's reason.
 */
function registerMarginals({ app, storage, admin, findRound, settings }: CollectorContext): void {
  app.get<{ Params: RoundParams; Querystring: { attrs: string; estimator?: Estimator; interval?: string } }>(
    "/v1/rounds/:id/marginals",
    { onRequest: admin, schema: { params: ROUND_PARAMS, querystring: MARGINALS_QUERY } },
    async (request): Promise<MarginalAnswer> => {
      const round = await findRound(request.params.id);
      const { plan } = round;
      const options = roundEstimateOptions(round); // a campaign round's instantaneous layer, if any
      const { attributes, estimator, level } = marginalQuery(
        plan,
        request.query,
        settings.maxQueryCells,
        options.instantEps === undefined
          ? undefined
          : "a campaign round de-biased with its instantaneous layer",
      );
      // With the per-report unary check, the kept reports' law is re-based (defences/unary-report-check.ts).
      const counts = estimationCounts(round, await storage.supportCounts(round), settings.unaryReportAlpha);
      let answer: EstimatedMarginal;
      try {
        answer = estimateMarginal(plan, counts, attributes, options, estimator, level);
      } catch (error) {
        if (level !== undefined && error instanceof CannotRunError)
          reject(400, "interval-unavailable", `interval: ${error.message}`);
        throw error;
      }
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
        ...intervalFields(answer.interval),
      };
    },
  );
}
