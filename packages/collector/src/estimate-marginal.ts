import {
  CalmAggregator,
  type CalmAnswer,
  type CalmEstimateOptions,
  type CalmIntervalTable,
  type CalmPlan,
  estimateCalm,
  estimateCalmPlus,
  expectedQuerySse,
} from "@calm-ldp/calm-core";
import { CannotRunError } from "@calm-ldp/errors";
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
  /**
   * With `interval`: calm-core's confidence interval for every cell's true
   * fraction (`estimateCalm(...).query(attributes, { interval })`).
   */
  readonly interval?: MarginalInterval;
}

/** The per-cell confidence interval of an answered marginal (calm-core `CalmIntervalTable`'s fields). */
export interface MarginalInterval {
  readonly level: number;
  readonly lower: Float64Array;
  readonly upper: Float64Array;
  readonly standardError: Float64Array;
  /** "analytic" (a view covers the query) or "bounds" (maximum-entropy answer, calm-core's Fréchet-bound interval). */
  readonly intervalMethod: CalmIntervalTable["intervalMethod"];
  /** Bootstrap replicates (0 on the analytic path). */
  readonly replicates: number;
  /** The point the interval is built around (analytic: the consistent linear estimate before non-negativity). */
  readonly center: Float64Array;
}

/**
 * Answer a marginal query from the database's counts exactly as the in-process
 * pipeline does: the aggregator from the counts, calm-core `estimateCalm` (oracle
 * estimates, consistency and non-negativity, CALM §4.2-4.4) and its answer for
 * `attributes` (projection of a covering view, otherwise maximum entropy). The
 * expected SSE is calm-core `expectedQuerySse` at the counted n with the answer
 * plugged in for the truth, for covered queries. With `estimator` "calm-plus"
 * the same counts go through calm-core `estimateCalmPlus` instead (its expected
 * SSE has no closed form: null). With `interval` (a level in (0, 1), "calm"
 * only: calm-plus has no variance model) the answer also carries calm-core's
 * per-cell interval: analytic for covered queries (O(sum over views of
 * |A| x |V| work), about one more answer), bound-based for maximum-entropy
 * answers (the analytic path on the query's covered parts, then Fréchet bounds:
 * a few more answers). The parametric bootstrap (B re-estimations, ~30x a point
 * answer) is never run here: calm-core's "auto" does not pick it, so no query
 * can make the server pay for it.
 * O(post-processing + one answer) without.
 */
export function estimateMarginal(
  plan: CalmPlan,
  counts: SupportCounts,
  attributes: readonly number[],
  options: CalmEstimateOptions = {},
  estimator: Estimator = "calm",
  interval?: number,
): EstimatedMarginal {
  if (interval !== undefined && estimator !== "calm")
    throw new CannotRunError(
      `estimateMarginal: intervals are available for the "calm" estimator only (${estimator} has no variance model)`,
    );
  const aggregator = aggregatorFromCounts(plan, counts);
  const n = aggregator.reports;
  if (interval !== undefined) {
    // A view without reports has no variance estimate: its zero-width "interval" would be false.
    const empty = plan.views.findIndex((_, v) => (counts.reportsPerView[v] ?? 0) === 0);
    if (empty >= 0)
      throw new CannotRunError(
        `estimateMarginal: intervals need reports in every view (view ${empty} has none; ${n} reports counted)`,
      );
  }
  let withInterval: CalmIntervalTable | undefined;
  let answer: CalmAnswer;
  if (estimator === "calm-plus") answer = estimateCalmPlus(plan, aggregator, options).answer(attributes);
  else {
    const synopsis = estimateCalm(plan, aggregator, options);
    answer = synopsis.answer(attributes);
    if (interval !== undefined) {
      withInterval = synopsis.query(attributes, { interval });
      // Cost guard: the bootstrap re-estimates the release B times; never on a request.
      if (withInterval.intervalMethod === "bootstrap")
        throw new CannotRunError(
          "estimateMarginal: the bootstrap interval path is not served by the collector",
        );
    }
  }
  const covered = plan.views.some((view) => attributes.every((a) => view.attributes.includes(a)));
  const expectedSse =
    estimator === "calm" && covered && n >= plan.views.length
      ? expectedQuerySse({ ...plan, n }, answer.table).total
      : null;
  if (withInterval === undefined)
    return { table: answer.table, method: answer.method, n, expectedSse, estimator };
  const { level, lower, upper, standardError, intervalMethod, replicates, center } = withInterval;
  return {
    table: answer.table,
    method: answer.method,
    n,
    expectedSse,
    estimator,
    interval: { level, lower, upper, standardError, intervalMethod, replicates, center },
  };
}

/**
 * An answer's interval as JSON fields of a marginals response (`level`, `lower`,
 * `upper`, `standardError` with null where it is not a number, `intervalMethod`,
 * `replicates`, `center`); no fields without an interval. O(cells).
 */
export function intervalFields(interval: MarginalInterval | undefined) {
  if (interval === undefined) return {};
  return {
    level: interval.level,
    lower: Array.from(interval.lower),
    upper: Array.from(interval.upper),
    standardError: Array.from(interval.standardError, (se) => (Number.isNaN(se) ? null : se)),
    intervalMethod: interval.intervalMethod,
    replicates: interval.replicates,
    center: Array.from(interval.center),
  };
}
