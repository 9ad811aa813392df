import {
  CalmAggregator,
  type CalmEstimateOptions,
  type CalmPlan,
  estimateCalm,
  estimateCalmPlus,
  expectedQuerySse,
} from "@calm-ldp/calm-core";
import type { MarginalTable } from "@calm-ldp/marginal-algebra";
import type { SupportCounts } from "./api.js";

/**
 * Fill a CALM aggregator of `plan` from the database's counts: per view, the
 * support counts C(x) and the number of reports (the oracle aggregator's
 * `addCounts`). Equal to adding the same reports one by one: every estimate is
 * a function of (C, N) only. O(sum of view cells).
 */
export function aggregatorFromCounts(plan: CalmPlan, counts: SupportCounts): CalmAggregator {
  const aggregator = new CalmAggregator(plan);
  aggregator.views.forEach((view, v) => {
    const reports = counts.reportsPerView[v] ?? 0;
    if (reports > 0) view.addCounts(counts.support[v]!, reports);
  });
  return aggregator;
}

/** The server-side estimators a marginal query may ask for (same counts, different estimation). */
export const ESTIMATORS = Object.freeze(["calm", "calm-plus"] as const);
/** "calm": the paper's pipeline; "calm-plus": calm-core's `estimateCalmPlus`. */
export type Estimator = (typeof ESTIMATORS)[number];

/** A marginal the collector answers, with how it was obtained and its expected error. */
export interface EstimatedMarginal {
  readonly table: MarginalTable;
  readonly method: "projection" | "maxent";
  /** Reports counted. */
  readonly n: number;
  /** See `MarginalAnswer.expectedSse`. */
  readonly expectedSse: number | null;
  /** The estimator that produced the table. */
  readonly estimator: Estimator;
}

/**
 * Answer a marginal query from the database's counts exactly as the in-process
 * pipeline does: the aggregator from the counts, calm-core `estimateCalm` (oracle
 * estimates, consistency and non-negativity, CALM §4.2-4.4) and its answer for
 * `attributes` (projection of a covering view, otherwise maximum entropy). The
 * expected SSE is calm-core `expectedQuerySse` at the counted n with the answer
 * plugged in for the truth, for covered queries. With `estimator` "calm-plus"
 * the same counts go through calm-core `estimateCalmPlus` instead (its expected
 * SSE has no closed form: null). O(post-processing + one answer).
 */
export function estimateMarginal(
  plan: CalmPlan,
  counts: SupportCounts,
  attributes: readonly number[],
  options: CalmEstimateOptions = {},
  estimator: Estimator = "calm",
): EstimatedMarginal {
  const aggregator = aggregatorFromCounts(plan, counts);
  const n = aggregator.reports;
  const answer =
    estimator === "calm-plus"
      ? estimateCalmPlus(plan, aggregator, options).answer(attributes)
      : estimateCalm(plan, aggregator, options).answer(attributes);
  const covered = plan.views.some((view) => attributes.every((a) => view.attributes.includes(a)));
  const expectedSse =
    estimator === "calm" && covered && n >= plan.views.length
      ? expectedQuerySse({ ...plan, n }, answer.table).total
      : null;
  return { table: answer.table, method: answer.method, n, expectedSse, estimator };
}
