import type { MarginalTable } from "@calm-ldp/marginal-algebra";

/**
 * How an interval was obtained:
 * - "analytic": estimate -+ z SE from the oracles' variance propagated through
 *   consistency (a view covers the query; the answer is linear in the counts);
 * - "bootstrap": parametric bootstrap of the release (only on covered queries:
 *   it sees the noise, not the maximum-entropy model's bias);
 * - "bounds": a conservative interval for a maximum-entropy answer, from the
 *   Fréchet bounds the true cell obeys given the covered parts' marginals, each
 *   widened by its noise (`boundInterval`); sound whatever the true table, wider.
 */
export type IntervalMethod = "analytic" | "bootstrap" | "bounds";

/** Options of a CALM query with an interval (`synopsis.query(attributes, { interval: 0.95 })`). */
export interface CalmIntervalOptions {
  /** Confidence level of the two-sided interval, in (0, 1) (e.g. 0.95). */
  interval: number;
  /**
   * "auto" (default): analytic when a view covers the query, bounds when the
   * answer comes from maximum entropy; "analytic" and "bootstrap" (covered
   * queries only: on a maximum-entropy answer they would carry the noise but not
   * the model's bias, a false level, so they are refused) or "bounds" force one path.
   */
  intervalMethod?: "auto" | IntervalMethod;
  /** Bootstrap replicates B (default 200). */
  replicates?: number;
  /** Seed of the bootstrap's random source (default 0; results are reproducible). */
  seed?: number;
  /** Also return the full |A| x |A| covariance of `center` (default false; O(|A|^2) memory). */
  covariance?: boolean;
}

/**
 * A marginal table (the released answer, fractions) with a confidence interval
 * for every cell's true population fraction.
 */
export interface CalmIntervalTable extends MarginalTable {
  /** The confidence level asked for. */
  readonly level: number;
  /** Lower bound per cell (clipped to [0, 1]; a true fraction lies there). */
  readonly lower: Float64Array;
  /** Upper bound per cell (clipped to [0, 1]). */
  readonly upper: Float64Array;
  /**
   * Standard error per cell (analytic: of `center`; bootstrap: of the replicates;
   * bounds: NaN, the interval is a bound and not an estimate -+ z SE).
   */
  readonly standardError: Float64Array;
  /** Which path produced the interval. */
  readonly intervalMethod: IntervalMethod;
  /**
   * The point the interval is built around: analytic, the linear (unbiased,
   * consistent, before non-negativity) estimate; bootstrap and bounds, the released cells.
   */
  readonly center: Float64Array;
  /** Bootstrap replicates used (0 on the analytic path). */
  readonly replicates: number;
  /**
   * With `covariance: true`: the covariance of `center` (analytic) or of the
   * replicates (bootstrap), row-major |A| x |A|.
   */
  readonly covariance?: Float64Array;
}

/**
 * The normal interval of every cell: `standardError = sqrt(max(0, variance))`,
 * `[center -+ z standardError]` clipped to [0, 1] (cells are fractions). O(cells).
 */
export function normalInterval(
  center: Float64Array,
  variance: ArrayLike<number>,
  z: number,
): { lower: Float64Array; upper: Float64Array; standardError: Float64Array } {
  const cells = center.length;
  const standardError = new Float64Array(cells);
  const lower = new Float64Array(cells);
  const upper = new Float64Array(cells);
  for (let a = 0; a < cells; a++) {
    standardError[a] = Math.sqrt(Math.max(0, variance[a]!));
    lower[a] = clip01(center[a]! - z * standardError[a]!);
    upper[a] = clip01(center[a]! + z * standardError[a]!);
  }
  return { lower, upper, standardError };
}

/** x clipped to [0, 1]. */
export function clip01(x: number): number {
  return Math.min(1, Math.max(0, x));
}
