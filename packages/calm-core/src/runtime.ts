import { createOracle, type FrequencyOracle } from "@calm-ldp/frequency-oracles";
import { perObject } from "@calm-ldp/marginal-algebra";
import type { CalmPlan } from "./api.js";

/** The oracles of a plan's views, built once per plan object. @internal */
export interface PlanRuntime {
  readonly oracles: readonly FrequencyOracle[];
  /** Cardinality of every view attribute, per view. */
  readonly viewCardinalities: readonly (readonly number[])[];
  /** Stable text identifying the plan's public parameters (for merge checks). */
  readonly fingerprint: string;
}

/** The runtime of `plan`, cached per plan object (pure: unused, a bundler drops it). O(m) the first time. @internal */
export const planRuntime: (plan: CalmPlan) => PlanRuntime = /* @__PURE__ */ perObject(
  (plan: CalmPlan): PlanRuntime => {
    const cardinalities = plan.schema.attributes.map((a) => a.labels.length);
    return {
      oracles: plan.views.map((view) => createOracle(view.oracle, { eps: plan.eps, domain: view.cells })),
      viewCardinalities: plan.views.map((view) => view.attributes.map((a) => cardinalities[a]!)),
      fingerprint: JSON.stringify([
        plan.method,
        plan.version,
        plan.eps,
        cardinalities,
        plan.views.map((v) => [v.attributes, v.oracle, v.cells]),
      ]),
    };
  },
);

/**
 * The frequency oracle of every view of `plan` (registry `createOracle` with the
 * plan's eps and the view's cell count), built once per plan object: the ones
 * `calmReport`, the aggregator and the estimators use. They also validate reports
 * on a server (their own `supports` check). O(m) the first time.
 */
export function viewOracles(plan: CalmPlan): readonly FrequencyOracle[] {
  return planRuntime(plan).oracles;
}
