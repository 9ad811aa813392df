/** calm-plus's options, checked and with their defaults filled in. */
import type { CalmPlan } from "../api.js";
import { invalid } from "../errors.js";
import type { CalmPlusEstimateOptions, CalmPlusShrinkage } from "./api.js";

const SHRINKAGES: readonly CalmPlusShrinkage[] = ["mixture", "order", "block", "none"];

/** What {@link shrinkPooled} shrinks the interactions of order >= 3 toward. */
export interface ShrinkOptions {
  interactionTarget: "independence" | "maxent";
  oneWayPrior: "contrasts" | "shape" | "hybrid";
  oneWayEvidence: "one-way" | "pairs";
  pairCenter: "test" | "always";
  /** Every attribute's number of categories. */
  cardinalities: readonly number[];
}

/** Every option of `estimateCalmPlus` that steers the estimate, defaults filled in. */
export interface ResolvedPlusOptions {
  shrinkage: CalmPlusShrinkage;
  shrinkOptions: ShrinkOptions;
  maxQueryCells: number;
  variance: "plugin" | "uniform";
  estimator: "pooled" | "joint";
  jointTargets: "shrunk" | "raw";
  jointAnswers: "model" | "maxent";
}

/**
 * `options` checked (an `InvalidParameterError` naming the first bad one) with
 * their defaults (see `CalmPlusEstimateOptions`). `unmeasuredPairs` is checked
 * by the pooled estimator's answers (after the joint estimator may have returned).
 * O(d).
 */
export function resolvePlusOptions(plan: CalmPlan, options: CalmPlusEstimateOptions): ResolvedPlusOptions {
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
  return { shrinkage, shrinkOptions, maxQueryCells, variance, estimator, jointTargets, jointAnswers };
}
