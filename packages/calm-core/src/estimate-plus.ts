import { type MarginalTable, type PostProcessResult, postProcessViews } from "@calm-ldp/marginal-algebra";
import { type CalmAggregator, checkAggregatorPlan } from "./aggregator.js";
import type { CalmPlan } from "./api.js";
import { pooledAnswer } from "./calm-plus/answer.js";
import type { CalmPlusEstimateOptions, CalmPlusJointReport, CalmPlusSynopsis } from "./calm-plus/api.js";
import { jointSynopsis } from "./calm-plus/joint.js";
import { resolvePlusOptions } from "./calm-plus/options.js";
import { coefficientMap, rebuildViews, viewEstimates } from "./calm-plus/pooled.js";
import { pluginVariances, poolAndShrink, uniformVariances } from "./calm-plus/pooling.js";
import { planRuntime } from "./runtime.js";

export type {
  CalmPlusEstimateOptions,
  CalmPlusJointOptions,
  CalmPlusJointReport,
  CalmPlusOrderShrinkage,
  CalmPlusShrinkage,
  CalmPlusSynopsis,
} from "./calm-plus/api.js";

/**
 * `calm-plus`: the same plan and reports as CALM, a joint estimator that uses
 * every report better at small eps. Steps (in the notation of ../../../docs/algorithms.md):
 * 1. every view's unbiased oracle estimate x_v (as CALM) is written in the
 *    orthonormal interaction basis (tensor Helmert contrasts): coefficient
 *    gamma_{v,u}; its support T (attributes with a non-constant contrast) and
 *    digits j name one population quantity beta_{T,j} = sqrt(D_v / D_T) gamma_{v,u}
 *    shared by every view containing T, with noise variance (D_v / D_T) s_{v,u}^2:
 *    a first pass takes s_{v,u}^2 data-independent (cells uniform, see
 *    `coefficientVariance`); by default ("plugin") steps 2-3 are then run again
 *    with every coefficient's exact variance evaluated at the first pass's fit of
 *    its view (`coefficientVariances`: oracle noise and the sampling of the view's
 *    group; on skewed data the coefficients touching a large cell are the noisy ones);
 * 2. pooling: beta_{T,j} = sum_v w_v beta_v / sum_v w_v with w_v = 1 / variance,
 *    the minimum-variance unbiased combination (tau^2 = 1 / sum_v w_v): every
 *    view's information on T is used, weighted by what it is worth;
 * 3. shrinkage (empirical Bayes): order 1 toward 0 (Uni's marginals), order
 *    r >= 2 toward the independence target t_{T,j} = prod_{a in T} beta_{a,j_a}
 *    of the shrunk one-way coefficients plus the order's precision-weighted mean
 *    residual mu_r (Efron-Morris' grand mean: e.g. a data set whose pairs are
 *    mostly positively correlated); the residual r = beta - t - mu_r gets the
 *    posterior mean under a prior fitted to all residuals of the order (default: a
 *    scale mixture of normals, see `mixtureFactors`): kept where the views carry
 *    signal, moved to the target where they carry only noise; by default
 *    (`interactionTarget` "maxent") the target of order r >= 3 is instead the
 *    coefficient of the max-entropy extension of T's shrunk (r-1)-way marginals
 *    (see `maxentTargets`); by default (`oneWayEvidence` "pairs") the one-way
 *    entries then also pool the measured pairs' evidence on them (a pair
 *    coefficient is the product of its one-way coefficients plus a small
 *    interaction) and the shrinkage is run again, three rounds (see `pairEvidence`);
 * 4. the views are rebuilt from the shrunk coefficients (consistent by
 *    construction, totals 1), made non-negative by CALM's post-processing loop,
 *    and queries are answered as CALM does (projection or maximum entropy).
 * Cost: O(sum_v D_v sum_{i in v} c_i) for the transforms plus one hash-map entry
 * per coefficient, i.e. linear in the total view cells (m views of l attributes:
 * O(m c^l l c)), twice with "plugin" variances; it grows with d, k only through
 * m and l; "pairs" evidence adds three rounds of one pass over the pair
 * coefficients plus the shrinkage. Queries cost what CALM's do.
 */
export function estimateCalmPlus(
  plan: CalmPlan,
  aggregator: CalmAggregator,
  options: CalmPlusEstimateOptions = {},
): CalmPlusSynopsis {
  checkAggregatorPlan("estimateCalmPlus", plan, aggregator);
  const resolved = resolvePlusOptions(plan, options);
  const { shrinkage, shrinkOptions, maxQueryCells } = resolved;
  const runtime = planRuntime(plan);
  // 1. The views' unbiased estimates in the interaction basis, and the pooled map.
  const map = coefficientMap(plan, runtime.viewCardinalities);
  const { rawViews, coefficients, emptyViews } = viewEstimates(plan, aggregator, runtime.viewCardinalities);
  const rebuild = () => rebuildViews(plan, runtime.viewCardinalities, map.viewKeys, map.viewScales);
  // 2-3. Pass 1: pooling and shrinkage with data-independent variances (cells taken uniform).
  const variances = uniformVariances(plan, aggregator, runtime);
  let orders = poolAndShrink(map, coefficients, variances, shrinkage, shrinkOptions);
  let fittedViews = rebuild();
  if (resolved.variance === "plugin") {
    // Pass 2: every coefficient's variance at the pass-1 fit of its view.
    coefficients.forEach((gamma, v) => {
      if (gamma) variances[v] = pluginVariances(plan, aggregator, runtime, fittedViews[v]!, v);
    });
    orders = poolAndShrink(map, coefficients, variances, shrinkage, shrinkOptions);
    fittedViews = rebuild();
  }
  // 4. The "joint" estimator: one graphical model (answers by inference, or its views by maxent).
  let joint: CalmPlusJointReport | undefined;
  let jointViews: MarginalTable[] | undefined;
  if (resolved.estimator === "joint") {
    const result = jointSynopsis(
      plan,
      shrinkOptions.cardinalities,
      runtime.viewCardinalities,
      map.viewKeys,
      map.viewScales,
      coefficients,
      variances,
      resolved.jointTargets,
      options.joint ?? {},
      maxQueryCells,
    );
    if ("fallback" in result) joint = { fallback: result.fallback };
    else if (resolved.jointAnswers === "maxent") {
      joint = result.report;
      jointViews = result.views;
    } else
      return {
        plan,
        views: result.views,
        rawViews,
        fittedViews,
        postProcess: undefined,
        emptyViews,
        shrinkage: orders,
        converged: result.report.converged!,
        joint: result.report,
        answer: result.answer,
        query: (attributes) => result.answer(attributes).table,
      };
  }
  // 4. The pooled estimator: the views made non-negative, queries by maximum entropy.
  const postProcess: PostProcessResult | undefined =
    jointViews || options.postProcess === false
      ? undefined
      : postProcessViews(fittedViews, options.postProcessOptions);
  const views = jointViews ?? (postProcess ? postProcess.views : fittedViews);
  const answer = pooledAnswer(plan, views, map.pooled, orders, options, maxQueryCells);
  return {
    plan,
    views,
    rawViews,
    fittedViews,
    postProcess,
    emptyViews,
    shrinkage: orders,
    converged: jointViews ? joint!.converged! : postProcess ? postProcess.converged : true,
    ...(joint ? { joint } : {}),
    answer,
    query: (attributes) => answer(attributes).table,
  };
}
