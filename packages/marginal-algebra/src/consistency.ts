import type { MarginalTable } from "./api.js";
import { applyConsistency, consistencyPlan, planInconsistency } from "./consistency-plan.js";
import { copyTable } from "./table.js";

/**
 * Make overlapping views mutually consistent, exactly as ALGORITHMS.md §3.2 (CALM
 * §4.4 and appendix A.3, after PriView): close the views' attribute sets under
 * intersection (with the empty set), and for each set A in that closure, smaller
 * sets first (a topological order of the subset relation), take the views V_1..V_s
 * containing A, their projections T_i onto A, `C_i = |V_i| / |V_A|`, weights
 * `w_i = (1/C_i) / sum_j (1/C_j)` (the minimum-variance weights when every view
 * cell has the same noise variance), target `T = sum_i w_i T_i`, and add
 * `(T[c] - T_i[c]) / C_i` to every cell of V_i that maps to cell c of A.
 *
 * Returns new views (input untouched) in input order, same unit. The empty-set
 * step equalises totals (to the weighted mean total). Processing in this order,
 * a later step never undoes an earlier one, so one pass leaves every pair of views
 * agreeing on every shared attribute set. Views must share one unit and agree on
 * the cardinality of shared attributes. Cost O(|closure| m d/32) to plan, plus
 * O(sum over closure sets A of sum over views V ⊇ A of |V|) to apply.
 */
export function makeConsistent(views: readonly MarginalTable[]): MarginalTable[] {
  const plan = consistencyPlan(views, "makeConsistent");
  const out = views.map(copyTable);
  applyConsistency(
    plan,
    out.map((view) => view.cells),
  );
  return out;
}

/**
 * How far views are from consistent: the largest difference, over every attribute
 * set in the intersection closure of their attribute sets (with the empty set,
 * i.e. totals) and every cell of it, between two views' projections. 0 (up to
 * rounding) after {@link makeConsistent}. Same unit as the views. Same cost as
 * {@link makeConsistent}.
 */
export function maxInconsistency(views: readonly MarginalTable[]): number {
  const plan = consistencyPlan(views, "maxInconsistency");
  return planInconsistency(
    plan,
    views.map((view) => view.cells),
  );
}
