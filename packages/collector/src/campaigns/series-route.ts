import { CannotRunError } from "@calm-ldp/errors";
import type { FastifyInstance } from "fastify";
import type { RoundState, SupportCounts } from "../api.js";
import { estimationCounts } from "../defences/unary-report-check.js";
import {
  type EstimatedMarginal,
  type Estimator,
  estimateMarginal,
  intervalFields,
} from "../estimate-marginal.js";
import { type MarginalQuery, marginalQuery } from "../query-attributes.js";
import { roundReadsOf } from "../round-reads.js";
import { ROUND_PARAMS } from "../schemas.js";
import { roundStates } from "./load.js";
import { rangeFilter } from "./range-filter.js";
import type { Campaign, CampaignParams, CampaignRoutes, IndexedRound } from "./types.js";

const SERIES_QUERY = {
  type: "object",
  required: ["attrs"],
  additionalProperties: false,
  properties: {
    attrs: { type: "string", minLength: 1, maxLength: 4096 },
    from: { type: "string", minLength: 1, maxLength: 40 },
    to: { type: "string", minLength: 1, maxLength: 40 },
    estimator: { type: "string", enum: ["calm", "calm-plus"] },
    interval: { type: "string", maxLength: 64 },
  },
} as const;

type SeriesQuery = { attrs: string; from?: string; to?: string; estimator?: Estimator; interval?: string };

/**
 * `GET /v1/campaigns/:id/marginals?attrs=a,b[&from=&to=][&estimator=][&interval=]`
 * (admin): the marginal estimated in every round in range (see {@link rangeFilter}),
 * de-biased for the clients' instantaneous layer when the campaign has one
 * (estimateCalm's `instantEps`). `interval=0.95` adds per round the per-cell
 * interval as on the round endpoint (`noInterval` says why for a round with a view
 * without reports; 400 for calm-plus or an instantaneous layer). Counts are re-based
 * for the per-report unary check as on the round endpoint (`estimationCounts`). Cost:
 * a roll-over read, one batched state read, one batched support read (a fixed number
 * of queries per 1000 rounds), then one estimate per round in range.
 */
export function registerSeriesRoute(app: FastifyInstance, { context, current }: CampaignRoutes): void {
  const { storage } = context;
  app.get<{ Params: CampaignParams; Querystring: SeriesQuery }>(
    "/v1/campaigns/:id/marginals",
    { onRequest: context.admin, schema: { params: ROUND_PARAMS, querystring: SERIES_QUERY } },
    async (request) => {
      const { campaign } = await current(request.params.id);
      const closed = await roundStates(storage, campaign);
      const plan = campaign.definition.plan;
      const query = marginalQuery(
        plan,
        request.query,
        context.maxQueryCells,
        campaign.instantEps === undefined ? undefined : "a campaign with an instantaneous layer",
      );
      const inRange = rangeFilter(request.query.from, request.query.to);
      const series = [];
      const shown = campaign.rounds.filter(inRange);
      const support = await roundReadsOf(storage).support(shown); // one read for all rounds
      let shownIndex = 0;
      for (const [i, round] of campaign.rounds.entries()) {
        if (!inRange(round)) continue;
        const counts = estimationCounts(round, support[shownIndex++]!, context.unaryReportAlpha);
        series.push(seriesPoint(campaign, round, closed[i]!, counts, query));
      }
      const { attributes, estimator } = query;
      return {
        campaign: campaign.id,
        attrs: attributes.map((a) => plan.schema.attributes[a]!.name),
        attributes,
        cardinalities: attributes.map((a) => plan.schema.attributes[a]!.labels.length),
        eps: plan.eps,
        instantEps: campaign.instantEps ?? null,
        estimator,
        series,
      };
    },
  );
}

/**
 * One round's point of a series: its marginal estimated from its support counts
 * (with the interval when asked; a round with a view still without reports has
 * none and says why in `noInterval`). One estimate (two when the interval cannot run).
 */
function seriesPoint(
  campaign: Campaign,
  round: IndexedRound,
  state: RoundState,
  counts: SupportCounts,
  { attributes, estimator, level }: MarginalQuery,
) {
  const plan = campaign.definition.plan;
  const options = campaign.instantEps === undefined ? {} : { instantEps: campaign.instantEps };
  let answer: EstimatedMarginal;
  let noInterval: string | undefined;
  try {
    answer = estimateMarginal(plan, counts, attributes, options, estimator, level);
  } catch (error) {
    if (level === undefined || !(error instanceof CannotRunError)) throw error;
    answer = estimateMarginal(plan, counts, attributes, options, estimator);
    noInterval = error.message;
  }
  return {
    round: round.id,
    index: round.index,
    openedAt: round.createdAt,
    closedAt: state.closedAt,
    n: answer.n,
    method: answer.method,
    cells: Array.from(answer.table.cells),
    // The closed form is for reports at the plan's eps; with an instantaneous layer it does not apply.
    expectedSse: campaign.instantEps === undefined ? answer.expectedSse : null,
    ...intervalFields(answer.interval),
    ...(noInterval === undefined ? {} : { noInterval }),
  };
}
