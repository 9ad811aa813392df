import type { CalmPlan } from "@calm-ldp/calm-core";
import { createOracle, type FrequencyOracle } from "@calm-ldp/frequency-oracles";

const cache = new WeakMap<CalmPlan, readonly FrequencyOracle[]>();

/**
 * The frequency oracle of every view of `plan` (registry `createOracle` with the
 * plan's eps and the view's cell count), built once per plan object. These
 * oracles validate reports on the server (their own `supports` check). O(m).
 */
export function viewOracles(plan: CalmPlan): readonly FrequencyOracle[] {
  let oracles = cache.get(plan);
  if (!oracles) {
    oracles = plan.views.map((view) => createOracle(view.oracle, { eps: plan.eps, domain: view.cells }));
    cache.set(plan, oracles);
  }
  return oracles;
}
