import type { MarginalTable } from "@calm-ldp/marginal-algebra";
import type { CalmEstimateOptions, CalmSynopsis } from "../estimate.js";
import type { JointFitOptions } from "../joint-fit.js";

/** How {@link estimateCalmPlus} shrinks the pooled interaction coefficients. */
export type CalmPlusShrinkage = "mixture" | "order" | "block" | "none";

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
