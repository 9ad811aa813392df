import type { MarginalTable, PostProcessOptions, PostProcessResult } from "./api.js";
import { largestChange } from "./consistency.js";
import { applyComponentConsistency, componentPlan } from "./consistency-components.js";
import { applyConsistency, consistencyPlan } from "./consistency-steps.js";
import { fail } from "./errors.js";
import { nonNegativeCells } from "./non-negativity.js";
import { copyTable } from "./table.js";

function negatives(cells: readonly Float64Array[], tolerance: number): { count: number; mass: number } {
  let count = 0;
  let mass = 0;
  for (const view of cells) {
    let total = 0;
    for (let u = 0; u < view.length; u++) total += view[u];
    const bound = -tolerance * Math.abs(total);
    for (let u = 0; u < view.length; u++) {
      if (view[u] < bound) {
        count++;
        mass -= view[u];
      }
    }
  }
  return { count, mass };
}

/**
 * Alternate consistency and non-negativity (../../../docs/algorithms.md#non-negativity, CALM §4.4): each
 * round runs the §3.2 consistency step on all views; if no cell is then below
 * `-tolerance * |view total|` the views are consistent and non-negative and the
 * loop stops; otherwise every view is made non-negative (the chosen method, total
 * kept) and the next round begins, up to `maxRounds` (default 30). When the cap is
 * reached the views end non-negative but possibly slightly inconsistent; the
 * result reports what is left (negative cells and mass, and the largest change
 * one more consistency step would make).
 *
 * Returns new views; the input is untouched. The consistency plan is built once.
 * Cost per round: one consistency pass (see `makeConsistent`) plus one
 * non-negativity pass per view.
 */
export function postProcessViews(
  views: readonly MarginalTable[],
  options: PostProcessOptions = {},
): PostProcessResult {
  const maxRounds = options.maxRounds ?? 30;
  const tolerance = options.tolerance ?? 1e-12;
  const method = options.consistency ?? "components";
  if (!Number.isInteger(maxRounds) || maxRounds < 1)
    fail("postProcessViews", "maxRounds must be an integer >= 1", maxRounds);
  if (!(tolerance >= 0) || !Number.isFinite(tolerance))
    fail("postProcessViews", "tolerance must be a finite number >= 0", tolerance);
  if (method !== "components" && method !== "steps")
    fail("postProcessViews", 'consistency must be "components" or "steps"', method);
  const out = views.map(copyTable);
  const cells = out.map((view) => view.cells);
  let consistent: (into: readonly Float64Array[]) => void;
  if (method === "components") {
    const plan = componentPlan(views, "postProcessViews");
    consistent = (into) => applyComponentConsistency(plan, cells, into);
  } else {
    const plan = consistencyPlan(views, "postProcessViews");
    consistent = (into) => {
      into.forEach((target, v) => {
        if (target !== cells[v]) target.set(cells[v]!);
      });
      applyConsistency(plan, into);
    };
  }
  let rounds = 0;
  let converged = false;
  while (rounds < maxRounds) {
    rounds++;
    consistent(cells);
    if (negatives(cells, tolerance).count === 0) {
      converged = true;
      break;
    }
    out.forEach((view) => {
      nonNegativeCells(view.cells, view.cardinalities, options, "postProcessViews");
    });
  }
  const left = negatives(cells, tolerance);
  const probe = cells.map((view) => new Float64Array(view.length));
  consistent(probe);
  return {
    views: out,
    rounds,
    converged,
    negativeCells: left.count,
    negativeMass: left.mass,
    maxInconsistency: largestChange(cells, probe),
  };
}
