import {
  cellValues,
  createTable,
  type MarginalTable,
  type PostProcessResult,
  postProcessViews,
  uniformTable,
} from "@calm-ldp/marginal-algebra";
import { fitIpf, maxEntropy } from "@calm-ldp/reconstruction";
import { type CalmAggregator, checkAggregatorPlan } from "./aggregator.js";
import type { CalmPlan } from "./api.js";
import { coefficientVariances } from "./coefficient-variance.js";
import { CannotRunError, invalid } from "./errors.js";
import type { CalmAnswer, CalmEstimateOptions, CalmSynopsis } from "./estimate.js";
import type { GraphicalModel } from "./graphical-model.js";
import { interactionTransform } from "./interaction-basis.js";
import { fitJoint, type JointFitOptions } from "./joint-fit.js";
import { mixtureWeights } from "./mixture-weights.js";
import { planRuntime } from "./runtime.js";
import { SHAPE_MAX_CARDINALITY, SHAPE_MIN_ATTRIBUTES, shapePosterior, signalShare } from "./shape-prior.js";

/** How {@link estimateCalmPlus} shrinks the pooled interaction coefficients. */
export type CalmPlusShrinkage = "mixture" | "order" | "block" | "none";

const SHRINKAGES: readonly CalmPlusShrinkage[] = ["mixture", "order", "block", "none"];

/** Options of {@link estimateCalmPlus}. */
export interface CalmPlusEstimateOptions extends CalmEstimateOptions {
  /**
   * Empirical-Bayes shrinkage of the pooled coefficients (default "mixture"): per
   * interaction order, a scale-mixture prior fitted by EM ("mixture"), one normal
   * prior with moment-estimated variance ("order"), one per attribute set T with
   * at least 4 coefficients ("block"), or none (only the variance-weighted pooling).
   */
  shrinkage?: CalmPlusShrinkage;
  /**
   * Pairs of query attributes that no view holds (default "prior"): constrained to
   * their empirical-Bayes prediction, the independence of the shrunk one-way
   * marginals plus the centre mu_2 of the measured pairs' residuals (clipped at 0),
   * or left to maximum entropy ("independence", as CALM).
   */
  unmeasuredPairs?: "prior" | "independence";
  /**
   * The target interactions of order r >= 3 are shrunk toward (default
   * "maxent"): the coefficient of the maximum-entropy table over T matching T's
   * (r-1)-way marginals already estimated (no r-way log-linear interaction), or
   * ("independence") the product of the one-way coefficients (the coefficient of
   * the product of the one-way marginals); for r = 2 both are the product. On
   * correlated data the pairs alone imply non-zero 3- and 4-way coefficients,
   * which independence would shrink away; the maxent target carries the noise of
   * the (r-1)-way estimates, which are pooled over many more views than the r-way
   * ones when l >= 4 (measured in the README: it wins at l = 4, about ties at
   * l = 3, changes nothing at l = 2). See `maxentTargets`.
   */
  interactionTarget?: "independence" | "maxent";
  /**
   * The prior of the one-way marginals (default "hybrid"). "contrasts" (the
   * default before session 5): every Helmert contrast shrunk toward 0 (Uni's
   * marginal) under the order's scale-mixture prior. "shape": for the attributes
   * with 3..4 categories, when at least 4 share a cardinality, a
   * permutation-invariant empirical-Bayes prior on the marginal's shape (see
   * `shapePosterior`: the attributes' sorted profiles fitted by maximum marginal
   * likelihood, whichever category is the large one, mixed with a flat prior on
   * the simplex by the signal fraction s), the other attributes as "contrasts".
   * "hybrid": for those attributes the prior s * contrasts + (1 - s) * fitted
   * shapes, i.e. the two posterior means weighted by s and (1 - s) times their
   * marginal densities: near-uniform marginals keep the contrasts' spike at
   * Uni, skewed ones borrow the shapes. With "shape" and "hybrid" the one-way
   * contrasts' centre and mixture are fitted per number of categories. Binary
   * attributes always take "contrasts" (their one contrast's symmetric scale
   * mixture already is a prior on |p - 1/2|; a shape prior on them was measured
   * worse on NLTCS). Measured in the README: "shape" gains 11% at eps 0.2 on Adult
   * d = 15 but loses up to 6% on Adult d = 8; "hybrid" gains 8% / 4% (k = 3 / 6)
   * and loses nowhere beyond 1%. "hybrid" needs `shrinkage` "mixture" (its
   * marginal densities); with "order" or "block" it leaves the shape prior out.
   */
  oneWayPrior?: "contrasts" | "shape" | "hybrid";
  /**
   * What the one-way marginals are fitted to (default "pairs"): the views' one-way
   * coefficients only ("one-way", the default before session 6), or also the
   * measured pairs' interaction coefficients, which under the pair prior (the
   * independence of the one-way marginals plus a small interaction) measure a's
   * marginal through its partner's: a pair view's cells weighted by the partner's
   * marginal instead of summed. See `pairEvidence` (formula, the guard against
   * pairs far from independence, cost). Measured in the README: -16% SSE on Adult
   * d = 15, k = 3 at eps 0.2, -11% at 0.5 (the ratio to calm 1.85 -> 2.1 and 1.94
   * -> 2.2), -18% to -23% on MSNBC; nowhere above +1% at eps 0.2..2.
   */
  oneWayEvidence?: "one-way" | "pairs";
  /**
   * The pairs' centre mu_2 (default "test"): kept only when it is at least two
   * standard errors from 0 (`PAIR_CENTER_Z`), else 0; "always": kept as estimated
   * (the default before session 6). On Adult the estimate at small eps is mostly
   * noise, which shifts every pair and enters the pairs' evidence on the one-way
   * marginals (see the README); on NLTCS the pairs' positive dependence makes it
   * large and it stays.
   */
  pairCenter?: "test" | "always";
  /**
   * Largest query table (cells) an answer may allocate; a larger query is refused
   * with `CannotRunError` naming the size it would need. Default 2^24.
   */
  maxQueryCells?: number;
  /**
   * The coefficients' noise variances (default "plugin"): "uniform" takes every
   * view's cells as uniform (data-independent, one variance per view); "plugin"
   * runs a second pass with every coefficient's variance evaluated at the first
   * pass's fit of its view (see `coefficientVariances`): on skewed data the
   * coefficients touching a large cell are much noisier than the others.
   */
  variance?: "plugin" | "uniform";
  /**
   * How the views and answers are made from the pooled coefficients (default
   * "pooled"): "pooled" rebuilds the views from the shrunk coefficients, makes them
   * non-negative by CALM's post-processing loop and answers by maximum entropy per
   * query; "joint" fits one graphical model to them (see `fitJoint`: consistency
   * and non-negativity by construction, every coefficient weighted by its
   * variance) and answers by inference in it. Falls back to "pooled" (saying so in
   * `joint.fallback`) when the model's junction tree exceeds `joint.maxModelCells`.
   */
  estimator?: "pooled" | "joint";
  /** Options of the "joint" estimator. */
  joint?: CalmPlusJointOptions;
}

/** Options of calm-plus's "joint" estimator. */
export interface CalmPlusJointOptions extends JointFitOptions {
  /**
   * What the model is fitted to (default "shrunk"): the empirical-Bayes posterior
   * means of the pooled coefficients, each weighted by 1 / (max(f, 0.05) tau^2)
   * (the normal posterior's variance f tau^2 for shrinkage factor f, floored to
   * keep the fit well conditioned), every population coefficient counted once; or
   * the views' raw unbiased coefficients, each weighted by 1 / its variance (the
   * plain Private-PGM maximum-likelihood fit, no shrinkage).
   */
  targets?: "shrunk" | "raw";
  /**
   * How queries are answered (default "model"): by inference in the fitted model,
   * or by maximum entropy per query over the model's view marginals plus, as the
   * pooled estimator does, the empirical-Bayes prediction of the query's pairs no
   * view holds (see `unmeasuredPairs`; the model itself leaves them to its own
   * maximum entropy, which holding them would make one clique of the whole domain).
   */
  answers?: "model" | "maxent";
}

/** What the "joint" estimator did. */
export interface CalmPlusJointReport {
  /** Mirror-descent steps, convergence and final loss of the fit (absent after a fallback). */
  readonly iterations?: number;
  readonly converged?: boolean;
  readonly loss?: number;
  /** Cells of the junction tree's largest clique and of all its cliques. */
  readonly largestClique?: number;
  readonly totalCells?: number;
  /** Why the joint fit was not used (the size it would need); the pooled estimator answered. */
  readonly fallback?: string;
}

/** The shrinkage applied to the coefficients of one interaction order. */
export interface CalmPlusOrderShrinkage {
  /** Interaction order |T| (number of attributes of the coefficients). */
  order: number;
  /** Number of pooled coefficients of that order. */
  coefficients: number;
  /** Prior mean mu_r of the residuals (coefficient minus independence target); 0 without shrinkage. */
  center: number;
  /** Estimated prior (signal) variance A_r = max(0, mean(beta^2 - tau^2)). */
  signalVariance: number;
  /** Mean noise variance tau^2 of the pooled coefficients. */
  noiseVariance: number;
  /** Mean factor A / (A + tau^2) the coefficients were multiplied by (1 = kept, 0 = uniform). */
  meanFactor: number;
}

/** What `calm-plus` releases: CALM's synopsis plus what the joint estimation did. */
export interface CalmPlusSynopsis extends CalmSynopsis {
  /** The views rebuilt from the pooled, shrunk coefficients (consistent; possibly with negative cells). */
  readonly fittedViews: readonly MarginalTable[];
  /** Per interaction order, the empirical-Bayes shrinkage applied. */
  readonly shrinkage: readonly CalmPlusOrderShrinkage[];
  /**
   * False when the non-negativity loop hit its round cap (see `postProcess`) or,
   * with the "joint" estimator, when the fit hit its step cap; never silently hidden.
   */
  readonly converged: boolean;
  /** With `estimator: "joint"`: what the joint fit did, or why it fell back. */
  readonly joint?: CalmPlusJointReport;
}

/** Pooled estimate of one interaction coefficient (attribute set T, contrast digits j). */
interface Pooled {
  order: number;
  block: string;
  /** Its key in the pooled map: "a:j," per support attribute a (ascending in the view) with digit j. */
  key: string;
  /** Sum over views of w * beta (w = 1 / variance). */
  weighted: number;
  /** Sum of w: the pooled precision. */
  precision: number;
  /** Final (shrunk) value. */
  value: number;
  /** Shrinkage factor of the residual (1 = kept, 0 = at the target); 1 without shrinkage. */
  factor: number;
  /** For order >= 2: the one-way entries (a, j_a) of its support, whose product is its independence target. */
  parts: Pooled[];
}

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
  const shrinkage = options.shrinkage ?? "mixture";
  if (!SHRINKAGES.includes(shrinkage))
    invalid("estimateCalmPlus", `shrinkage must be one of ${SHRINKAGES.join(", ")}`, shrinkage);
  const maxQueryCells = options.maxQueryCells ?? 2 ** 24;
  if (!(maxQueryCells >= 1) || !Number.isFinite(maxQueryCells))
    invalid("estimateCalmPlus", "maxQueryCells must be a finite number >= 1", maxQueryCells);
  const variance = options.variance ?? "plugin";
  if (variance !== "plugin" && variance !== "uniform")
    invalid("estimateCalmPlus", 'variance must be "plugin" or "uniform"', variance);
  const interactionTarget = options.interactionTarget ?? "maxent";
  if (interactionTarget !== "independence" && interactionTarget !== "maxent")
    invalid("estimateCalmPlus", 'interactionTarget must be "independence" or "maxent"', interactionTarget);
  const oneWayPrior = options.oneWayPrior ?? "hybrid";
  if (oneWayPrior !== "contrasts" && oneWayPrior !== "shape" && oneWayPrior !== "hybrid")
    invalid("estimateCalmPlus", 'oneWayPrior must be "contrasts", "shape" or "hybrid"', oneWayPrior);
  const pairCenterRule = options.pairCenter ?? "test";
  if (pairCenterRule !== "test" && pairCenterRule !== "always")
    invalid("estimateCalmPlus", 'pairCenter must be "test" or "always"', pairCenterRule);
  const oneWayEvidence = options.oneWayEvidence ?? "pairs";
  if (oneWayEvidence !== "one-way" && oneWayEvidence !== "pairs")
    invalid("estimateCalmPlus", 'oneWayEvidence must be "one-way" or "pairs"', oneWayEvidence);
  const shrinkOptions: ShrinkOptions = {
    interactionTarget,
    oneWayPrior,
    oneWayEvidence,
    pairCenter: pairCenterRule,
    cardinalities: plan.schema.attributes.map((a) => a.labels.length),
  };
  const estimator = options.estimator ?? "pooled";
  if (estimator !== "pooled" && estimator !== "joint")
    invalid("estimateCalmPlus", 'estimator must be "pooled" or "joint"', estimator);
  const jointTargets = options.joint?.targets ?? "shrunk";
  const jointAnswers = options.joint?.answers ?? "model";
  if (jointAnswers !== "model" && jointAnswers !== "maxent")
    invalid("estimateCalmPlus", 'joint.answers must be "model" or "maxent"', jointAnswers);
  if (jointTargets !== "shrunk" && jointTargets !== "raw")
    invalid("estimateCalmPlus", 'joint.targets must be "shrunk" or "raw"', jointTargets);
  const runtime = planRuntime(plan);
  const cardinalities = plan.schema.attributes.map((a) => a.labels.length);
  const emptyViews: number[] = [];
  const pooled = new Map<string, Pooled>();
  const viewKeys: (readonly (Pooled | undefined)[])[] = [];
  const viewScales: Float64Array[] = [];
  const viewCoefficients: (Float64Array | undefined)[] = [];
  const rawViews = plan.views.map((view, v) => {
    const viewCardinalities = runtime.viewCardinalities[v]!;
    const counts = aggregator.views[v]!;
    const { keys, scales } = coefficientKeys(view.attributes, viewCardinalities, pooled);
    viewKeys.push(keys);
    viewScales.push(scales);
    if (counts.reports === 0) {
      emptyViews.push(v);
      viewCoefficients.push(undefined);
      return uniformTable(view.attributes, viewCardinalities);
    }
    const raw = createTable(view.attributes, viewCardinalities, {
      cells: counts.estimate(),
      unit: "fraction",
    });
    const coefficients = Float64Array.from(raw.cells);
    interactionTransform(coefficients, viewCardinalities, false);
    viewCoefficients.push(coefficients);
    return raw;
  });
  // Pooling and shrinkage of every view's coefficients, given their variances (one or two passes).
  const poolWith = (varianceOf: (view: number) => Float64Array) =>
    poolAndShrink(pooled, plan, viewKeys, viewScales, viewCoefficients, shrinkage, shrinkOptions, varianceOf);
  // Pass 1: data-independent variances (cells taken uniform).
  let orders = poolWith((v) => {
    const oracle = runtime.oracles[v]!;
    const value = coefficientVariance(
      plan.views[v]!.oracle,
      plan.views[v]!.cells,
      aggregator.views[v]!.reports,
      oracle.p,
      oracle.q,
    );
    return new Float64Array(plan.views[v]!.cells).fill(value);
  });
  let fittedViews = rebuildViews(plan, runtime.viewCardinalities, viewKeys, viewScales);
  // The variances of every view's coefficients used by the last pass (for the joint fit).
  const lastVariances: Float64Array[] = plan.views.map((view, v) => {
    const oracle = runtime.oracles[v]!;
    const reports = aggregator.views[v]!.reports;
    return new Float64Array(view.cells).fill(
      reports > 0
        ? coefficientVariance(view.oracle, view.cells, reports, oracle.p, oracle.q)
        : Number.POSITIVE_INFINITY,
    );
  });
  if (variance === "plugin") {
    // Pass 2: every coefficient's variance at the pass-1 fit of its view (clipped at 0,
    // renormalised): heteroscedastic weights for pooling and shrinkage.
    const fits = fittedViews;
    orders = poolWith((v) => {
      const oracle = runtime.oracles[v]!;
      const f = Float64Array.from(fits[v]!.cells, (x) => Math.max(0, x));
      const total = f.reduce((sum, x) => sum + x, 0);
      for (let i = 0; i < f.length; i++) f[i] = total > 0 ? f[i]! / total : 1 / f.length;
      const ofF = Float64Array.from(f);
      interactionTransform(ofF, runtime.viewCardinalities[v]!, false);
      const variances = coefficientVariances(
        plan.views[v]!.oracle,
        oracle.p,
        oracle.q,
        aggregator.views[v]!.reports,
        f,
        runtime.viewCardinalities[v]!,
        ofF,
      );
      lastVariances[v] = variances;
      return variances;
    });
    fittedViews = rebuildViews(plan, runtime.viewCardinalities, viewKeys, viewScales);
  }
  let joint: CalmPlusJointReport | undefined;
  let jointViews: MarginalTable[] | undefined;
  if (estimator === "joint") {
    const result = jointSynopsis(
      plan,
      cardinalities,
      runtime.viewCardinalities,
      viewKeys,
      viewScales,
      viewCoefficients,
      lastVariances,
      jointTargets,
      options.joint ?? {},
      maxQueryCells,
    );
    if ("fallback" in result) joint = { fallback: result.fallback };
    else if (jointAnswers === "maxent") {
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
  const postProcess: PostProcessResult | undefined =
    jointViews || options.postProcess === false
      ? undefined
      : postProcessViews(fittedViews, options.postProcessOptions);
  const views = jointViews ?? (postProcess ? postProcess.views : fittedViews);
  const maxEntropyOptions = { ...(options.maxEntropy ?? {}), cardinalities };
  const unmeasured = options.unmeasuredPairs ?? "prior";
  if (unmeasured !== "prior" && unmeasured !== "independence")
    invalid("estimateCalmPlus", 'unmeasuredPairs must be "prior" or "independence"', unmeasured);
  // Unmeasured pairs are predicted from the measured ones only when these are mostly
  // alike: mu_2^2 >= A_2 (the centre explains at least half of their second moment);
  // otherwise maximum entropy's chains through measured pairs carry more.
  const pairs = orders.find((o) => o.order === 2);
  const pairCenter = pairs && pairs.center * pairs.center >= pairs.signalVariance ? pairs.center : 0;
  const covered = new Set<string>();
  for (const view of plan.views)
    for (const a of view.attributes) for (const b of view.attributes) if (a < b) covered.add(`${a},${b}`);
  const answer = (attributes: readonly number[]): CalmAnswer => {
    let cells = 1;
    for (const a of attributes) cells *= cardinalities[a] ?? 1;
    if (cells > maxQueryCells)
      throw new CannotRunError(
        `calm-plus: the query over ${attributes.length} attributes needs a table of ${cells} cells, above maxQueryCells = ${maxQueryCells}`,
      );
    const constraints = [...views];
    if (unmeasured === "prior" && pairCenter !== 0) {
      const sorted = [...attributes].sort((x, y) => x - y);
      for (let i = 0; i < sorted.length; i++)
        for (let j = i + 1; j < sorted.length; j++) {
          const [a, b] = [sorted[i]!, sorted[j]!];
          if (covered.has(`${a},${b}`) || cardinalities[a] === undefined || cardinalities[b] === undefined)
            continue;
          constraints.push(priorPair(a, b, cardinalities[a]!, cardinalities[b]!, pooled, pairCenter));
        }
    }
    const diagnostics = maxEntropy(constraints, attributes, maxEntropyOptions);
    // The non-negativity loop stops at cells >= -1e-12 |total|; release exact zeros instead.
    const released = diagnostics.table.cells;
    for (let i = 0; i < released.length; i++) if (released[i]! < 0) released[i] = 0;
    return {
      table: diagnostics.table,
      method: diagnostics.method === "projection" ? "projection" : "maxent",
      diagnostics,
    };
  };
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

/**
 * calm-plus's "joint" estimator: per view, targets and weights in its interaction
 * basis, then `fitJoint` (one graphical model for all views) and answers by
 * inference in it. "shrunk": every population coefficient beta_{T,j} counted once
 * (in the first view holding it): target value / scale, weight scale^2 / (max(f,
 * 0.05) tau^2) (tau^2 = 1 / pooled precision, f its shrinkage factor); "raw":
 * every view's own unbiased coefficient with weight 1 / its variance. A model too
 * large (`CannotRunError` from the junction tree) returns `fallback` with its
 * message. Cost: see `fitJoint`; queries by variable elimination (`GraphicalModel.query`).
 */
function jointSynopsis(
  plan: CalmPlan,
  cardinalities: readonly number[],
  viewCardinalities: readonly (readonly number[])[],
  viewKeys: readonly (readonly (Pooled | undefined)[])[],
  viewScales: readonly Float64Array[],
  viewCoefficients: readonly (Float64Array | undefined)[],
  variances: readonly Float64Array[],
  targets: "shrunk" | "raw",
  options: CalmPlusJointOptions,
  maxQueryCells: number,
):
  | { fallback: string }
  | {
      views: MarginalTable[];
      report: CalmPlusJointReport;
      answer: (attributes: readonly number[]) => CalmAnswer;
    } {
  const order = plan.views.map((view) => [...view.attributes]);
  if (order.some((view) => view.some((a, i) => i > 0 && a <= view[i - 1]!)))
    return { fallback: "calm-plus joint: the plan's view attributes are not ascending" };
  const seen = new Set<Pooled>();
  const targetArrays: Float64Array[] = [];
  const weightArrays: Float64Array[] = [];
  plan.views.forEach((view, v) => {
    const t = new Float64Array(view.cells);
    const w = new Float64Array(view.cells);
    t[0] = 1 / Math.sqrt(view.cells);
    const keys = viewKeys[v]!;
    const scales = viewScales[v]!;
    const raw = viewCoefficients[v];
    for (let u = 1; u < view.cells; u++) {
      const entry = keys[u]!;
      const scale = scales[u]!;
      if (targets === "raw") {
        t[u] = raw ? raw[u]! : 0;
        w[u] = raw && Number.isFinite(variances[v]![u]!) && variances[v]![u]! > 0 ? 1 / variances[v]![u]! : 0;
      } else {
        t[u] = entry.value / scale;
        if (!seen.has(entry) && entry.precision > 0) {
          seen.add(entry);
          w[u] = (scale * scale * entry.precision) / Math.max(entry.factor, 0.05);
        }
      }
    }
    targetArrays.push(t);
    weightArrays.push(w);
  });
  let fit: ReturnType<typeof fitJoint>;
  try {
    fit = fitJoint(cardinalities, order, targetArrays, weightArrays, options);
  } catch (error) {
    if (error instanceof CannotRunError) return { fallback: error.message };
    throw error;
  }
  const model: GraphicalModel = fit.model;
  const views = plan.views.map((view, v) =>
    createTable(view.attributes, viewCardinalities[v]!, {
      cells: Float64Array.from(fit.marginals[v]!),
      unit: "fraction",
    }),
  );
  const report: CalmPlusJointReport = {
    iterations: fit.iterations,
    converged: fit.converged,
    loss: fit.loss,
    largestClique: model.largestClique,
    totalCells: model.totalCells,
  };
  const answer = (attributes: readonly number[]): CalmAnswer => {
    const sorted = [...attributes].sort((x, y) => x - y);
    sorted.forEach((a, i) => {
      if (!Number.isInteger(a) || a < 0 || a >= cardinalities.length)
        invalid("calm-plus query", `attributes must be integers in 0..${cardinalities.length - 1}`, a);
      if (i > 0 && a === sorted[i - 1])
        invalid("calm-plus query", "attributes must be distinct", attributes.join(","));
    });
    let cells = 1;
    for (const a of sorted) cells *= cardinalities[a] ?? 1;
    if (cells > maxQueryCells)
      throw new CannotRunError(
        `calm-plus: the query over ${attributes.length} attributes needs a table of ${cells} cells, above maxQueryCells = ${maxQueryCells}`,
      );
    const table = createTable(
      sorted,
      sorted.map((a) => cardinalities[a]!),
      { cells: model.query(fit.theta, sorted, maxQueryCells), unit: "fraction" },
    );
    const holder = order.find((view) => sorted.every((a) => view.includes(a)));
    return {
      table,
      method: holder ? "projection" : "maxent",
      diagnostics: {
        table,
        method: holder ? "projection" : "ipf",
        constraints: order.filter((view) => view.some((a) => sorted.includes(a))),
        iterations: fit.iterations,
        maxResidual: 0,
        converged: fit.converged,
        stalled: false,
        totalRestored: false,
        maxDisagreement: 0,
        clippedMass: 0,
        inconsistent: false,
      },
    };
  };
  return { views, report, answer };
}

/**
 * Pools every measured coefficient across the views holding it by inverse variance
 * (`varianceOf(v)[u]`: the variance of view v's coefficient u) and shrinks the
 * pooled values (see `shrinkPooled`). Resets the entries first, so it can be run
 * again with better variances. O(total view cells) plus the shrinkage.
 */
function poolAndShrink(
  pooled: Map<string, Pooled>,
  plan: CalmPlan,
  viewKeys: readonly (readonly (Pooled | undefined)[])[],
  viewScales: readonly Float64Array[],
  viewCoefficients: readonly (Float64Array | undefined)[],
  shrinkage: CalmPlusShrinkage,
  shrinkOptions: ShrinkOptions,
  varianceOf: (view: number) => Float64Array,
): CalmPlusOrderShrinkage[] {
  for (const entry of pooled.values()) {
    entry.weighted = 0;
    entry.precision = 0;
    entry.value = 0;
    entry.factor = 1;
  }
  plan.views.forEach((_, v) => {
    const coefficients = viewCoefficients[v];
    if (!coefficients) return;
    const keys = viewKeys[v]!;
    const scales = viewScales[v]!;
    const variances = varianceOf(v);
    for (let u = 1; u < coefficients.length; u++) {
      const entry = keys[u]!;
      const scale = scales[u]!;
      const weight = 1 / (scale * scale * variances[u]!);
      entry.weighted += weight * scale * coefficients[u]!;
      entry.precision += weight;
    }
  });
  let report = shrinkPooled(pooled, shrinkage, shrinkOptions);
  if (shrinkOptions.oneWayEvidence === "pairs" && shrinkage !== "none")
    report = pairEvidence(pooled, shrinkage, shrinkOptions, report);
  return report;
}

/** Standard errors the pairs' centre must stand from 0 to be kept (`pairCenter` "test"). */
const PAIR_CENTER_Z = 2;

/** Rounds of {@link pairEvidence} (each with the partners' values from the round before). */
const PAIR_EVIDENCE_ROUNDS = 3;

/**
 * `oneWayEvidence` "pairs": the one-way marginals fitted to the measured pairs'
 * interaction coefficients too. Under the pair prior a pooled pair coefficient is
 * y = beta_{a,i} beta_{b,j} + mu_2 + lambda + e (the independence of the one-way
 * marginals, the order's centre, an interaction lambda of variance A_2, noise e
 * of variance tau^2 = 1 / precision), so given b's current (shrunk) marginal it
 * measures beta_{a,i} with precision beta_{b,j}^2 / (A_2 + tau^2): the pair
 * view's cells weighted by the partner's marginal instead of summed (for a 0.8 /
 * 0.1 / 0.1 partner about as much precision as the view's own one-way
 * coefficients, whose noise counts every cell alike). Per one-way coefficient
 * these terms give a second estimate x_2 = sum w beta_b (y - mu_2) / P_2,
 * P_2 = sum w beta_b^2 (w = 1 / (A_2 + tau^2), A_2 = max(0, mean(r^2 - tau^2))
 * about the current targets) beside the pooled one x_1 (precision P_1). Where
 * pairs are far from independence x_2 is biased, so a between-source variance
 * B = max(0, mean((x_1 - x_2)^2 - 1/P_1 - 1/P_2)) over all one-way coefficients
 * (a moment estimate, as DerSimonian-Laird's) is added to 1/P_2; each one-way
 * entry then pools both (precision P_1 + 1 / (1/P_2 + B)) and the shrinkage is
 * run again: {@link PAIR_EVIDENCE_ROUNDS} rounds, a Jacobi iteration of the
 * bilinear fit. Cost: O(rounds x (pair coefficients + the shrinkage)).
 */
function pairEvidence(
  pooled: Map<string, Pooled>,
  shrinkage: CalmPlusShrinkage,
  options: ShrinkOptions,
  first: CalmPlusOrderShrinkage[],
): CalmPlusOrderShrinkage[] {
  const ones: Pooled[] = [];
  const pairs: Pooled[] = [];
  for (const entry of pooled.values()) {
    if (entry.order === 1) ones.push(entry);
    else if (entry.order === 2 && entry.precision > 0) pairs.push(entry);
  }
  if (pairs.length === 0) return first;
  const base = new Map(ones.map((e) => [e, { weighted: e.weighted, precision: e.precision }]));
  let report = first;
  for (let round = 0; round < PAIR_EVIDENCE_ROUNDS; round++) {
    const center = report.find((o) => o.order === 2)?.center ?? 0;
    let excess = 0;
    for (const e of pairs) {
      const r = e.weighted / e.precision - e.parts[0]!.value * e.parts[1]!.value - center;
      excess += r * r - 1 / e.precision;
    }
    const signal = Math.max(0, excess / pairs.length);
    // The pairs' estimate of every one-way coefficient: sums of w beta_b (y - mu_2) and w beta_b^2.
    const fromPairs = new Map<Pooled, { weighted: number; precision: number }>();
    for (const e of pairs) {
      const y = e.weighted / e.precision - center;
      const w = 1 / (signal + 1 / e.precision);
      const [p, q] = [e.parts[0]!, e.parts[1]!];
      for (const [own, other] of [
        [p, q],
        [q, p],
      ] as const) {
        const sums = fromPairs.get(own) ?? { weighted: 0, precision: 0 };
        sums.weighted += w * other.value * y;
        sums.precision += w * other.value * other.value;
        fromPairs.set(own, sums);
      }
    }
    // Between-source variance B of the pairs' estimates about the one-way ones.
    let gapExcess = 0;
    let gaps = 0;
    for (const e of ones) {
      const one = base.get(e)!;
      const two = fromPairs.get(e);
      if (!two || !(two.precision > 0) || !(one.precision > 0)) continue;
      const gap = two.weighted / two.precision - one.weighted / one.precision;
      gapExcess += gap * gap - 1 / two.precision - 1 / one.precision;
      gaps++;
    }
    const bias = gaps > 0 ? Math.max(0, gapExcess / gaps) : 0;
    for (const e of ones) {
      const one = base.get(e)!;
      const two = fromPairs.get(e);
      e.weighted = one.weighted;
      e.precision = one.precision;
      if (!two || !(two.precision > 0)) continue;
      const precision = 1 / (1 / two.precision + bias);
      e.weighted += (two.weighted / two.precision) * precision;
      e.precision += precision;
    }
    report = shrinkPooled(pooled, shrinkage, options);
  }
  return report;
}

/** Every view's table from the pooled values (coefficient u = value / scale). O(total view cells). */
function rebuildViews(
  plan: CalmPlan,
  viewCardinalities: readonly (readonly number[])[],
  viewKeys: readonly (readonly (Pooled | undefined)[])[],
  viewScales: readonly Float64Array[],
): MarginalTable[] {
  return plan.views.map((view, v) => {
    const keys = viewKeys[v]!;
    const scales = viewScales[v]!;
    const coefficients = new Float64Array(view.cells);
    coefficients[0] = 1 / Math.sqrt(view.cells);
    for (let u = 1; u < coefficients.length; u++) coefficients[u] = keys[u]!.value / scales[u]!;
    interactionTransform(coefficients, viewCardinalities[v]!, true);
    return createTable(view.attributes, viewCardinalities[v]!, { cells: coefficients, unit: "fraction" });
  });
}

/**
 * The empirical-Bayes prediction of the marginal of a pair (a, b) no view holds:
 * coefficients 1/sqrt(c_a c_b) (total 1), the shrunk one-way beta_{a,j}/sqrt(c_b)
 * and beta_{b,j}/sqrt(c_a), and beta_{a,j} beta_{b,j'} + mu_2 for the pair
 * (independence plus the measured pairs' mean residual); negative cells set to 0
 * and the table renormalised. O(c_a c_b (c_a + c_b)).
 */
function priorPair(
  a: number,
  b: number,
  ca: number,
  cb: number,
  pooled: Map<string, Pooled>,
  center: number,
): MarginalTable {
  const one = (attribute: number, j: number) => pooled.get(`${attribute}:${j},`)?.value ?? 0;
  const coefficients = new Float64Array(ca * cb);
  for (let ja = 0; ja < ca; ja++)
    for (let jb = 0; jb < cb; jb++) {
      let value: number;
      if (ja === 0 && jb === 0) value = 1 / Math.sqrt(ca * cb);
      else if (jb === 0) value = one(a, ja) / Math.sqrt(cb);
      else if (ja === 0) value = one(b, jb) / Math.sqrt(ca);
      else value = one(a, ja) * one(b, jb) + center;
      coefficients[ja * cb + jb] = value;
    }
  interactionTransform(coefficients, [ca, cb], true);
  let total = 0;
  for (let u = 0; u < coefficients.length; u++) {
    if (coefficients[u]! < 0) coefficients[u] = 0;
    total += coefficients[u]!;
  }
  for (let u = 0; u < coefficients.length; u++) coefficients[u]! /= total;
  return createTable([a, b], [ca, cb], { cells: coefficients, unit: "fraction" });
}

/**
 * For every coefficient u of a view, its pooled entry (created on first sight)
 * and the scale sqrt(D_v / D_T) from the view's coefficient to the population's.
 * O(D_v l).
 */
function coefficientKeys(
  attributes: readonly number[],
  cardinalities: readonly number[],
  pooled: Map<string, Pooled>,
): { keys: (Pooled | undefined)[]; scales: Float64Array } {
  let size = 1;
  for (const c of cardinalities) size *= c;
  const keys: (Pooled | undefined)[] = new Array(size);
  const scales = new Float64Array(size);
  const digits = new Array<number>(attributes.length);
  for (let u = 1; u < size; u++) {
    let rest = u;
    for (let i = attributes.length - 1; i >= 0; i--) {
      const c = cardinalities[i]!;
      digits[i] = rest % c;
      rest = (rest - digits[i]!) / c;
    }
    let block = "";
    let key = "";
    let order = 0;
    let supportCells = 1;
    for (let i = 0; i < attributes.length; i++) {
      if (digits[i] === 0) continue;
      order++;
      supportCells *= cardinalities[i]!;
      block += `${attributes[i]},`;
      key += `${attributes[i]}:${digits[i]},`;
    }
    let entry = pooled.get(key);
    if (!entry) {
      const parts: Pooled[] = [];
      if (order >= 2)
        for (let i = 0; i < attributes.length; i++) {
          if (digits[i] === 0) continue;
          const partKey = `${attributes[i]}:${digits[i]},`;
          let part = pooled.get(partKey);
          if (!part) {
            part = {
              order: 1,
              block: `${attributes[i]},`,
              key: partKey,
              weighted: 0,
              precision: 0,
              value: 0,
              factor: 1,
              parts: [],
            };
            pooled.set(partKey, part);
          }
          parts.push(part);
        }
      entry = { order, block, key, weighted: 0, precision: 0, value: 0, factor: 1, parts };
      pooled.set(key, entry);
    }
    keys[u] = entry;
    scales[u] = Math.sqrt(size / supportCells);
  }
  return { keys, scales };
}

/** What {@link shrinkPooled} shrinks the interactions of order >= 3 toward. */
interface ShrinkOptions {
  interactionTarget: "independence" | "maxent";
  oneWayPrior: "contrasts" | "shape" | "hybrid";
  oneWayEvidence: "one-way" | "pairs";
  pairCenter: "test" | "always";
  /** Every attribute's number of categories. */
  cardinalities: readonly number[];
}

/**
 * Empirical-Bayes shrinkage of the pooled coefficients (sets every entry's
 * value), order by order from 1 up. Order 1 shrinks toward 0 (the uniform
 * marginal); order r >= 2 toward the independence target t_{T,j} =
 * prod_{a in T} beta_{a,j_a} (the coefficient of the product of the already
 * shrunk one-way marginals); every order's residuals beta - t are first centred
 * on their precision-weighted mean mu_r, which is kept (mu_2 only at two standard
 * errors from 0 with `pairCenter` "test", the default), and the centred residual
 * is shrunk. Groups: per
 * order ("order", "mixture"), per attribute set T with >= 4 coefficients
 * ("block", else per order). Coefficients no view measured take the target.
 * With `interactionTarget` "maxent" (the default), the target of order r >= 3 is instead the
 * coefficient of the max-entropy extension of T's (r-1)-way marginals (see
 * {@link maxentTargets}), the centre then the mean residual about it.
 * With `oneWayPrior` "shape", the one-way marginals of attributes with 3..4
 * categories (groups of >= 4 of one cardinality) are instead the posterior means
 * under the permutation-invariant shape prior (`shapePosterior`), and the order's
 * centre and mixture are fitted to the other one-way coefficients only; with
 * "hybrid" (default) they are the posterior means under s * (the order's mixture)
 * + (1 - s) * (the fitted shapes), weighted by their marginal densities. With
 * either, order 1's centre and mixture are fitted per number of categories.
 * O(number of coefficients) ("mixture": times the EM cost of {@link mixtureFactors};
 * "maxent": plus one small IPF per attribute set of order >= 3; "shape": plus
 * `shapePosterior`'s O(attributes x atoms x iterations)).
 */
function shrinkPooled(
  pooled: Map<string, Pooled>,
  shrinkage: CalmPlusShrinkage,
  { interactionTarget, oneWayPrior, cardinalities, pairCenter }: ShrinkOptions,
): CalmPlusOrderShrinkage[] {
  const byOrder = new Map<number, Pooled[]>();
  for (const entry of pooled.values()) {
    const group = byOrder.get(entry.order) ?? [];
    group.push(entry);
    byOrder.set(entry.order, group);
  }
  const report: CalmPlusOrderShrinkage[] = [];
  for (const order of [...byOrder.keys()].sort((a, b) => a - b)) {
    const all = byOrder.get(order)!;
    for (const entry of all) {
      let target = 0;
      if (order >= 2) {
        target = 1;
        for (const part of entry.parts) target *= part.value;
      }
      entry.value = target;
    }
    if (interactionTarget === "maxent" && order >= 3) {
      const blocks = new Map<string, Pooled[]>();
      for (const entry of all) {
        const members = blocks.get(entry.block) ?? [];
        members.push(entry);
        blocks.set(entry.block, members);
      }
      for (const [block, members] of blocks) {
        const targets = maxentTargets(block, pooled, cardinalities);
        if (!targets) continue;
        for (const entry of members) {
          const value = targets.get(entry.key);
          if (value !== undefined) entry.value = value;
        }
      }
    }
    let measured = all.filter((entry) => entry.precision > 0);
    if (measured.length === 0) continue;
    // One-way marginals under the shape prior: set here, left out of the order's mixture below.
    const hybrid = order === 1 && oneWayPrior === "hybrid" && shrinkage === "mixture";
    const shapes =
      order === 1 && (oneWayPrior === "shape" || hybrid) && shrinkage !== "none"
        ? shapeOneWays(measured, cardinalities, hybrid ? 0 : undefined)
        : [];
    // "shape": these one-way entries are set by the shape prior and left out of the order's mixture.
    const shaped = new Map<Pooled, { value: number; factor: number }>();
    if (!hybrid)
      for (const shape of shapes)
        shape.entries.forEach((entry, j) => {
          shaped.set(entry, { value: shape.values[j]!, factor: shape.factor });
        });
    measured = measured.filter((entry) => !shaped.has(entry));
    const residual = Float64Array.from(measured, (e) => e.weighted / e.precision - e.value);
    const tau2 = Float64Array.from(measured, (e) => 1 / e.precision);
    // The prior's centre: the precision-weighted mean residual of the order (e.g. the
    // typical positive correlation of a data set's pairs), kept like Efron-Morris' grand mean.
    // Groups sharing one centre and one mixture: the whole order; with the "shape" and "hybrid"
    // one-way priors, the one-way contrasts per number of categories (a binary attribute's one
    // contrast and a ternary attribute's two are different quantities).
    const cardinalityOf = (entry: Pooled) => cardinalities[Number(entry.block.slice(0, -1))]!;
    const perCardinality = order === 1 && oneWayPrior !== "contrasts";
    const groupOf = (entry: Pooled) => (perCardinality ? cardinalityOf(entry) : 0);
    const groups = new Map<number, number[]>();
    measured.forEach((entry, i) => {
      const key = groupOf(entry);
      const members = groups.get(key) ?? [];
      members.push(i);
      groups.set(key, members);
    });
    const centers = new Map<number, number>();
    let center = 0;
    if (shrinkage !== "none" && measured.length > 0) {
      for (const [key, members] of groups) {
        let num = 0;
        let den = 0;
        for (const i of members) {
          num += residual[i]! * measured[i]!.precision;
          den += measured[i]!.precision;
        }
        let mu = num / den;
        if (order === 2 && pairCenter === "test" && mu !== 0) {
          // Kept only where it stands out of its own noise (two standard errors): Var(mu) =
          // sum p_i^2 (A + tau_i^2) / (sum p_i)^2 for precisions p_i, A the moment signal variance.
          let excess = 0;
          for (const i of members) excess += (residual[i]! - mu) ** 2 - tau2[i]!;
          const signal = Math.max(0, excess / members.length);
          let spread = 0;
          for (const i of members) spread += measured[i]!.precision ** 2 * (signal + tau2[i]!);
          if (mu * mu < (PAIR_CENTER_Z * PAIR_CENTER_Z * spread) / (den * den)) mu = 0;
        }
        centers.set(key, mu);
        for (const i of members) residual[i]! -= mu;
      }
      let num = 0;
      let den = 0;
      measured.forEach((e) => {
        num += centers.get(groupOf(e))! * e.precision;
        den += e.precision;
      });
      center = num / den;
      for (const entry of all) if (!shaped.has(entry)) entry.value += centers.get(groupOf(entry)) ?? center;
    }
    let factors: Float64Array;
    const logDensity = new Float64Array(measured.length);
    if (shrinkage === "none") factors = new Float64Array(measured.length).fill(1);
    else if (shrinkage === "mixture") {
      factors = new Float64Array(measured.length);
      for (const members of groups.values()) {
        const local = new Float64Array(members.length);
        const part = mixtureFactors(
          Float64Array.from(members, (i) => residual[i]!),
          Float64Array.from(members, (i) => tau2[i]!),
          local,
        );
        members.forEach((i, m) => {
          factors[i] = part[m]!;
          logDensity[i] = local[m]!;
        });
      }
    } else {
      factors = momentFactors(residual, tau2);
      if (shrinkage === "block") {
        const blocks = new Map<string, number[]>();
        measured.forEach((e, i) => {
          const members = blocks.get(e.block) ?? [];
          members.push(i);
          blocks.set(e.block, members);
        });
        for (const members of blocks.values()) {
          if (members.length < 4) continue;
          const local = momentFactors(
            Float64Array.from(members, (i) => residual[i]!),
            Float64Array.from(members, (i) => tau2[i]!),
          );
          members.forEach((i, m) => {
            factors[i] = local[m]!;
          });
        }
      }
    }
    let excess = 0;
    let noise = 0;
    let factorSum = 0;
    measured.forEach((entry, i) => {
      entry.value += factors[i]! * residual[i]!;
      entry.factor = factors[i]!;
      excess += residual[i]! * residual[i]! - tau2[i]!;
      noise += tau2[i]!;
      factorSum += factors[i]!;
    });
    if (hybrid) {
      // Each shaped attribute's posterior under the prior s * contrasts + (1 - s) * fitted shapes:
      // the two posterior means weighted by their marginal densities.
      const index = new Map<Pooled, number>();
      measured.forEach((entry, i) => {
        index.set(entry, i);
      });
      for (const shape of shapes) {
        let logContrasts = 0;
        for (const entry of shape.entries) logContrasts += logDensity[index.get(entry)!]!;
        const logit = Math.log(shape.share) + logContrasts - Math.log(1 - shape.share) - shape.logDensity;
        const weight = logit >= 0 ? 1 / (1 + Math.exp(-logit)) : Math.exp(logit) / (1 + Math.exp(logit));
        shape.entries.forEach((entry, j) => {
          entry.value = weight * entry.value + (1 - weight) * shape.values[j]!;
          entry.factor = weight * entry.factor + (1 - weight) * shape.factor;
        });
      }
    }
    for (const [entry, { value, factor }] of shaped) {
      entry.value = value;
      entry.factor = factor;
      const raw = entry.weighted / entry.precision;
      excess += raw * raw - 1 / entry.precision;
      noise += 1 / entry.precision;
      factorSum += entry.factor;
    }
    const counted = measured.length + shaped.size;
    report.push({
      order,
      center,
      coefficients: counted,
      signalVariance: Math.max(0, excess / counted),
      noiseVariance: noise / counted,
      meanFactor: factorSum / counted,
    });
  }
  return report;
}

/** One attribute's one-way entries under the shape prior. */
interface ShapedAttribute {
  /** Its one-way entries, by contrast digit 1..c-1. */
  entries: Pooled[];
  /** Their posterior means and the mean shrinkage factor. */
  values: Float64Array;
  factor: number;
  /** log marginal density of its pooled coefficients under the fitted shape prior. */
  logDensity: number;
  /** The group's signal fraction (see `signalShare`). */
  share: number;
}

/**
 * The one-way entries set by the shape prior (see `shapePosterior`): the
 * attributes with 3..SHAPE_MAX_CARDINALITY categories whose every contrast was
 * measured, grouped by cardinality; a group of at least SHAPE_MIN_ATTRIBUTES
 * attributes gets each attribute's posterior mean under the prior fitted to the
 * group (value and factor set). Returns the entries it set. O(attributes x atoms x EM iterations).
 */
function shapeOneWays(
  measured: readonly Pooled[],
  cardinalities: readonly number[],
  flatShare?: number,
): ShapedAttribute[] {
  const byAttribute = new Map<number, Pooled[]>();
  for (const entry of measured) {
    const attribute = Number(entry.block.slice(0, -1));
    const members = byAttribute.get(attribute) ?? [];
    members.push(entry);
    byAttribute.set(attribute, members);
  }
  const groups = new Map<number, { attribute: number; entries: Pooled[] }[]>();
  for (const [attribute, entries] of byAttribute) {
    const c = cardinalities[attribute]!;
    if (c < 3 || c > SHAPE_MAX_CARDINALITY || entries.length !== c - 1) continue;
    // Contrast digit j (1..c-1) from the key "a:j,".
    entries.sort(
      (x, y) => Number(x.key.split(":")[1]!.slice(0, -1)) - Number(y.key.split(":")[1]!.slice(0, -1)),
    );
    const group = groups.get(c) ?? [];
    group.push({ attribute, entries });
    groups.set(c, group);
  }
  const shaped: ShapedAttribute[] = [];
  for (const [c, group] of groups) {
    if (group.length < SHAPE_MIN_ATTRIBUTES) continue;
    const inputs = group.map(({ entries }) => ({
      coefficients: Float64Array.from(entries, (e) => e.weighted / e.precision),
      variances: Float64Array.from(entries, (e) => 1 / e.precision),
    }));
    const share = signalShare(inputs);
    const outputs = shapePosterior(inputs, c, flatShare ?? share);
    group.forEach(({ entries }, i) => {
      const output = outputs[i]!;
      shaped.push({
        entries,
        values: output.coefficients,
        factor: output.factor,
        logDensity: output.logDensity,
        share,
      });
    });
  }
  return shaped;
}

/** IPF sweeps and tolerance (largest margin difference) of {@link maxentTargets}. */
const MAXENT_TARGET_SWEEPS = 200;
const MAXENT_TARGET_TOLERANCE = 1e-10;

/**
 * The "maxent" targets of the attribute set T (`block`, r >= 3 attributes): its
 * (r-1)-way marginals are rebuilt from the pooled values of every coefficient
 * supported in them (negative cells clipped to 1e-12, renormalised); the
 * maximum-entropy table over T with these marginals is found by reconstruction's
 * `fitIpf` from the uniform table (at most 200 sweeps); its coefficients
 * supported on all of T, keyed as the pooled map keys them, are returned (undefined if some lower-order
 * coefficient was never measured, or the IPF did not converge: the caller keeps
 * the independence target). Cost: O(D_T r (sum c + sweeps)) for D_T = prod c_a.
 */
function maxentTargets(
  block: string,
  pooled: Map<string, Pooled>,
  cardinalities: readonly number[],
): Map<string, number> | undefined {
  const attributes = block
    .split(",")
    .filter((x) => x !== "")
    .map(Number);
  const cards = attributes.map((a) => cardinalities[a]!);
  const r = attributes.length;
  const size = cards.reduce((x, y) => x * y, 1);

  // Margins over T minus attribute i, as cells.
  const margins: MarginalTable[] = [];
  for (let drop = 0; drop < r; drop++) {
    const sub = attributes.filter((_, i) => i !== drop);
    const subCards = cards.filter((_, i) => i !== drop);
    const subSize = size / cards[drop]!;
    const coefficients = new Float64Array(subSize);
    for (let u = 0; u < subSize; u++) {
      const digits = cellValues(u, subCards);
      let key = "";
      let supportCells = 1;
      digits.forEach((j, i) => {
        if (j === 0) return;
        key += `${sub[i]}:${j},`;
        supportCells *= subCards[i]!;
      });
      if (key === "") {
        coefficients[u] = 1 / Math.sqrt(subSize);
        continue;
      }
      const entry = pooled.get(key);
      if (!entry) return undefined;
      coefficients[u] = entry.value / Math.sqrt(subSize / supportCells);
    }
    interactionTransform(coefficients, subCards, true);
    let total = 0;
    for (let u = 0; u < subSize; u++) {
      coefficients[u] = Math.max(coefficients[u]!, 1e-12);
      total += coefficients[u]!;
    }
    for (let u = 0; u < subSize; u++) coefficients[u]! /= total;
    const margin = createTable(sub, subCards);
    margin.cells.set(coefficients);
    margins.push(margin);
  }
  const fit = fitIpf(attributes, cards, margins, {
    tolerance: MAXENT_TARGET_TOLERANCE,
    maxIterations: MAXENT_TARGET_SWEEPS,
  });
  if (!fit.converged) return undefined;
  const cells = fit.table.cells; // a fresh table: transformed in place
  interactionTransform(cells, cards, false);
  const targets = new Map<string, number>();
  for (let u = 0; u < size; u++) {
    const digits = cellValues(u, cards);
    if (digits.some((j) => j === 0)) continue;
    targets.set(digits.map((j, i) => `${attributes[i]}:${j},`).join(""), cells[u]!);
  }
  return targets;
}

/**
 * Linear empirical-Bayes factors (Efron-Morris): prior N(0, A) with the moment
 * estimate A = max(0, mean(r^2 - tau^2)); factor A / (A + tau^2). O(N).
 */
function momentFactors(residual: Float64Array, tau2: Float64Array): Float64Array {
  let excess = 0;
  for (let i = 0; i < residual.length; i++) excess += residual[i]! * residual[i]! - tau2[i]!;
  const signal = Math.max(0, excess / residual.length);
  return Float64Array.from(tau2, (t) => (signal + t > 0 ? signal / (signal + t) : 0));
}

/** Grid of prior scales of {@link mixtureFactors}: 0 and geometric steps of sqrt(2). */
const MIXTURE_STEP = Math.SQRT2;
/** EM iterations of {@link mixtureFactors} (the mixture weights' likelihood is concave). */
const MIXTURE_ITERATIONS = 200;

/**
 * Adaptive shrinkage factors (empirical Bayes with a scale-mixture prior, as in
 * Stephens' "ash", 2017): prior g = sum_s pi_s N(0, s^2) over a fixed grid of
 * scales s (0 included, geometric from min tau / 4 to 2 max |r|), weights pi
 * fitted by maximum marginal likelihood (EM: pi_s <- mean over coefficients of
 * the posterior weight of s, with r ~ N(0, s^2 + tau^2)); each coefficient's
 * factor is its posterior mean over r: sum_s w_s(r) s^2 / (s^2 + tau^2). Large
 * residuals are kept almost whole, small ones go to the target, with no
 * threshold to tune. Cost: O(N G) per EM iteration for N coefficients and G grid
 * points (G ~ 2 log2(range), about 30), 200 iterations.
 */
function mixtureFactors(residual: Float64Array, tau2: Float64Array, logDensity?: Float64Array): Float64Array {
  const count = residual.length;
  let minTau = Number.POSITIVE_INFINITY;
  let maxResidual = 0;
  for (let i = 0; i < count; i++) {
    minTau = Math.min(minTau, Math.sqrt(tau2[i]!));
    maxResidual = Math.max(maxResidual, Math.abs(residual[i]!));
  }
  const scales = [0];
  for (let s = minTau / 4; s < 2 * Math.max(maxResidual, minTau); s *= MIXTURE_STEP) scales.push(s);
  const grid = scales.length;
  // likelihood[i * grid + g] = N(r_i; 0, s_g^2 + tau_i^2), without the common 1/sqrt(2 pi).
  const likelihood = new Float64Array(count * grid);
  for (let i = 0; i < count; i++)
    for (let g = 0; g < grid; g++) {
      const v = scales[g]! * scales[g]! + tau2[i]!;
      likelihood[i * grid + g] = Math.exp((-0.5 * residual[i]! * residual[i]!) / v) / Math.sqrt(v);
    }
  const weights = mixtureWeights(likelihood, count, grid, MIXTURE_ITERATIONS);
  const factors = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    let total = 0;
    let factor = 0;
    for (let g = 0; g < grid; g++) {
      const w = weights[g]! * likelihood[i * grid + g]!;
      total += w;
      const s2 = scales[g]! * scales[g]!;
      factor += (w * s2) / (s2 + tau2[i]!);
    }
    factors[i] = total > 0 ? factor / total : 0;
    if (logDensity) logDensity[i] = Math.log(total) - 0.5 * Math.log(2 * Math.PI);
  }
  return factors;
}
