import type { ProtocolPlan } from "@calm-ldp/marginal-algebra";
import { InvalidParameterError } from "./errors.js";

const cache = new WeakMap<object, string>();

/**
 * @internal Canonical text of a plan (its JSON), cached per plan object: two
 * aggregators merge only when their plans have the same text. O(plan size) once.
 */
export function planFingerprint(plan: ProtocolPlan): string {
  let text = cache.get(plan);
  if (text === undefined) {
    text = JSON.stringify(plan);
    cache.set(plan, text);
  }
  return text;
}

/** @internal Throw unless `other` is an instance of `type` built for a plan with the same fingerprint. */
export function checkMergeable<T extends { readonly plan: ProtocolPlan }>(
  where: string,
  self: T,
  other: unknown,
  type: abstract new (...args: never[]) => T,
): T {
  if (!(other instanceof type))
    throw new InvalidParameterError(
      `${where}: can only merge an aggregator of the same method (got ${String(other)})`,
    );
  if (planFingerprint(other.plan) !== planFingerprint(self.plan))
    throw new InvalidParameterError(`${where}: the other aggregator belongs to a different plan`);
  return other;
}

/** @internal Throw unless the aggregator given to `estimate` is an instance of `type` for this plan. */
export function checkAggregator<T extends { readonly plan: ProtocolPlan }>(
  where: string,
  plan: ProtocolPlan,
  aggregator: unknown,
  type: abstract new (...args: never[]) => T,
): T {
  if (!(aggregator instanceof type))
    throw new InvalidParameterError(`${where}: the aggregator must come from this method's createAggregator`);
  if (aggregator.plan !== plan && planFingerprint(aggregator.plan) !== planFingerprint(plan))
    throw new InvalidParameterError(`${where}: the aggregator belongs to a different plan`);
  return aggregator;
}
