import type { ProtocolPlan } from "@calm-ldp/marginal-algebra";
import { perObject } from "@calm-ldp/marginal-algebra";
import { checkAnswers } from "./answers.js";
import type { AnswerPostProcessing } from "./api.js";
import { InvalidParameterError } from "./errors.js";

/**
 * @internal Canonical text of a plan (its JSON), cached per plan object: two
 * aggregators merge only when their plans have the same text. O(plan size) once.
 */
export const planFingerprint: (plan: ProtocolPlan) => string = /* @__PURE__ */ perObject(
  (plan: ProtocolPlan) => JSON.stringify(plan),
);

/** @internal `candidate` as an instance of `type` built for `plan` (same fingerprint); else InvalidParameterError with `wrongType` or `wrongPlan`. */
function ofPlan<T extends { readonly plan: ProtocolPlan }>(
  plan: ProtocolPlan,
  candidate: unknown,
  type: abstract new (...args: never[]) => T,
  wrongType: () => string,
  wrongPlan: string,
): T {
  if (!(candidate instanceof type)) throw new InvalidParameterError(wrongType());
  if (candidate.plan !== plan && planFingerprint(candidate.plan) !== planFingerprint(plan))
    throw new InvalidParameterError(wrongPlan);
  return candidate;
}

/** @internal Throw unless `other` is an instance of `type` built for a plan with the same fingerprint. */
export function checkMergeable<T extends { readonly plan: ProtocolPlan }>(
  where: string,
  self: T,
  other: unknown,
  type: abstract new (...args: never[]) => T,
): T {
  return ofPlan(
    self.plan,
    other,
    type,
    () => `${where}: can only merge an aggregator of the same method (got ${String(other)})`,
    `${where}: the other aggregator belongs to a different plan`,
  );
}

/** @internal Throw unless the aggregator given to `estimate` is an instance of `type` for this plan. */
export function checkAggregator<T extends { readonly plan: ProtocolPlan }>(
  where: string,
  plan: ProtocolPlan,
  aggregator: unknown,
  type: abstract new (...args: never[]) => T,
): T {
  return ofPlan(
    plan,
    aggregator,
    type,
    () => `${where}: the aggregator must come from this method's createAggregator`,
    `${where}: the aggregator belongs to a different plan`,
  );
}

/**
 * @internal What a linear method's estimate starts with: the `answers` option
 * checked, then the aggregator checked as the method's own (`type`, this plan),
 * both named `<method>.estimate` in errors. O(1) (the plan's fingerprint once).
 */
export function checkEstimateInputs<T extends { readonly plan: ProtocolPlan }>(
  plan: ProtocolPlan,
  aggregator: unknown,
  type: abstract new (...args: never[]) => T,
  answers: AnswerPostProcessing,
): [T, AnswerPostProcessing] {
  const where = `${plan.method}.estimate`;
  const post = checkAnswers(where, answers);
  return [checkAggregator(where, plan, aggregator, type), post];
}
