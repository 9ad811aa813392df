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
 * The option `name`'s value: `fallback` (its default) when undefined, else the
 * value given, which must be one of `allowed` (an `InvalidParameterError` naming
 * the choices otherwise, in the order written: `"a", "b" or "c"`). O(|allowed|).
 */
function choice<T extends string>(name: string, value: T | undefined, fallback: T, allowed: readonly T[]): T {
  const chosen = value ?? fallback;
  if (!allowed.includes(chosen)) {
    const quoted = allowed.map((a) => `"${a}"`);
    const choices = `${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`;
    invalid("estimateCalmPlus", `${name} must be ${choices}`, chosen);
  }
  return chosen;
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
  const variance = choice("variance", options.variance, "plugin", ["plugin", "uniform"]);
  const interactionTarget = choice("interactionTarget", options.interactionTarget, "maxent", [
    "independence",
    "maxent",
  ]);
  const oneWayPrior = choice("oneWayPrior", options.oneWayPrior, "hybrid", ["contrasts", "shape", "hybrid"]);
  const pairCenterRule = choice("pairCenter", options.pairCenter, "test", ["test", "always"]);
  const oneWayEvidence = choice("oneWayEvidence", options.oneWayEvidence, "pairs", ["one-way", "pairs"]);
  const shrinkOptions: ShrinkOptions = {
    interactionTarget,
    oneWayPrior,
    oneWayEvidence,
    pairCenter: pairCenterRule,
    cardinalities: plan.schema.attributes.map((a) => a.labels.length),
  };
  const estimator = choice("estimator", options.estimator, "pooled", ["pooled", "joint"]);
  const jointAnswers = choice("joint.answers", options.joint?.answers, "model", ["model", "maxent"]);
  const jointTargets = choice("joint.targets", options.joint?.targets, "shrunk", ["shrunk", "raw"]);
  return { shrinkage, shrinkOptions, maxQueryCells, variance, estimator, jointTargets, jointAnswers };
}
