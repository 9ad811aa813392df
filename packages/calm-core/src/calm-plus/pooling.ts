/**
 * calm-plus's pooling: every measured coefficient combined across the views
 * holding it by inverse variance, with the variances of one of two passes
 * (data-independent, then by default "plugin" at the first pass's fit).
 */
import type { MarginalTable } from "@calm-ldp/marginal-algebra";
import type { CalmAggregator } from "../aggregator.js";
import type { CalmPlan } from "../api.js";
import { coefficientVariances } from "../coefficient-variance.js";
import { interactionTransform } from "../interaction-basis.js";
import type { PlanRuntime } from "../runtime.js";
import type { CalmPlusOrderShrinkage, CalmPlusShrinkage } from "./api.js";
import type { ShrinkOptions } from "./options.js";
import { pairEvidence } from "./pair-evidence.js";
import type { CoefficientMap } from "./pooled.js";
import { shrinkPooled } from "./shrink.js";

/**
 * Per-coefficient noise variance of view v's non-constant interaction
 * coefficients (orthonormal basis, fractions), data-independent (cells taken
 * uniform, 1/D): GRR's multinomial covariance gives `1 / (D N (p-q)^2)`; the
 * unary oracles' independent cells give `(p(1-p)/D + (1-1/D) q(1-q)) / (N (p-q)^2)`;
 * plus the sampling variance of a group of N users about the population, `1/(D N)`.
 */
function coefficientVariance(oracle: string, cells: number, reports: number, p: number, q: number): number {
  const gap = (p - q) * (p - q);
  const noise =
    oracle === "grr"
      ? 1 / (cells * reports * gap)
      : ((p * (1 - p)) / cells + (1 - 1 / cells) * q * (1 - q)) / (reports * gap);
  return noise + 1 / (cells * reports);
}

/**
 * Pass 1's variances: every coefficient of view v at `coefficientVariance` (cells
 * taken uniform); +infinity for a view with no report. O(total view cells).
 */
export function uniformVariances(
  plan: CalmPlan,
  aggregator: CalmAggregator,
  runtime: PlanRuntime,
): Float64Array[] {
  return plan.views.map((view, v) => {
    const oracle = runtime.oracles[v]!;
    const reports = aggregator.views[v]!.reports;
    return new Float64Array(view.cells).fill(
      reports > 0
        ? coefficientVariance(view.oracle, view.cells, reports, oracle.p, oracle.q)
        : Number.POSITIVE_INFINITY,
    );
  });
}

/**
 * Pass 2's variances ("plugin"): every coefficient's variance evaluated at the
 * pass-1 fit of its view (clipped at 0, renormalised; see `coefficientVariances`):
 * heteroscedastic weights for pooling and shrinkage. O(D_v sum_{i in v} c_i) for view v.
 */
export function pluginVariances(
  plan: CalmPlan,
  aggregator: CalmAggregator,
  runtime: PlanRuntime,
  fit: MarginalTable,
  v: number,
): Float64Array {
  const oracle = runtime.oracles[v]!;
  const f = Float64Array.from(fit.cells, (x) => Math.max(0, x));
  const total = f.reduce((sum, x) => sum + x, 0);
  for (let i = 0; i < f.length; i++) f[i] = total > 0 ? f[i]! / total : 1 / f.length;
  const ofF = Float64Array.from(f);
  interactionTransform(ofF, runtime.viewCardinalities[v]!, false);
  return coefficientVariances(
    plan.views[v]!.oracle,
    oracle.p,
    oracle.q,
    aggregator.views[v]!.reports,
    f,
    runtime.viewCardinalities[v]!,
    ofF,
  );
}

/**
 * Pools every measured coefficient across the views holding it by inverse variance
 * (`variances[v][u]`: the variance of view v's coefficient u): beta_{T,j} =
 * sum_v w_v beta_v / sum_v w_v, w_v = 1 / ((D_v / D_T) s_{v,u}^2), and shrinks the
 * pooled values (see `shrinkPooled`, then `pairEvidence` with `oneWayEvidence`
 * "pairs"). Resets the entries first, so it can be run again with better
 * variances. O(total view cells) plus the shrinkage.
 */
export function poolAndShrink(
  { pooled, viewKeys, viewScales }: CoefficientMap,
  viewCoefficients: readonly (Float64Array | undefined)[],
  variances: readonly Float64Array[],
  shrinkage: CalmPlusShrinkage,
  shrinkOptions: ShrinkOptions,
): CalmPlusOrderShrinkage[] {
  for (const entry of pooled.values()) {
    entry.weighted = 0;
    entry.precision = 0;
    entry.value = 0;
    entry.factor = 1;
  }
  viewCoefficients.forEach((coefficients, v) => {
    if (!coefficients) return;
    const keys = viewKeys[v]!;
    const scales = viewScales[v]!;
    const variance = variances[v]!;
    for (let u = 1; u < coefficients.length; u++) {
      const entry = keys[u]!;
      const scale = scales[u]!;
      const weight = 1 / (scale * scale * variance[u]!);
      entry.weighted += weight * scale * coefficients[u]!;
      entry.precision += weight;
    }
  });
  let report = shrinkPooled(pooled, shrinkage, shrinkOptions);
  if (shrinkOptions.oneWayEvidence === "pairs" && shrinkage !== "none")
    report = pairEvidence(pooled, shrinkage, shrinkOptions, report);
  return report;
}
