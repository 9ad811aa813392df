import { createOracle, type FrequencyOracle } from "@calm-ldp/frequency-oracles";
import type { CalmPlan } from "./api.js";

/** The oracles of a plan's views, built once per plan object. @internal */
export interface PlanRuntime {
  readonly oracles: readonly FrequencyOracle[];
  /** Cardinality of every view attribute, per view. */
  readonly viewCardinalities: readonly (readonly number[])[];
  /** Stable text identifying the plan's public parameters (for merge checks). */
  readonly fingerprint: string;
}

const cache = new WeakMap<CalmPlan, PlanRuntime>();

/** The runtime of `plan`, cached per plan object. O(m) the first time. @internal */
export function planRuntime(plan: CalmPlan): PlanRuntime {
  let runtime = cache.get(plan);
  if (!runtime) {
    const cardinalities = plan.schema.attributes.map((a) => a.labels.length);
    runtime = {
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
    cache.set(plan, runtime);
  }
  return runtime;
}
