import type { MarginalTable } from "@calm-ldp/marginal-algebra";
import type { ModelStep } from "./api.js";

function isSubset(small: readonly number[], large: ReadonlySet<number>): boolean {
  return small.every((a) => large.has(a));
}

/**
 * @internal Whether model steps form a junction tree of `inputs`: every step's
 * `given` set inside one earlier step's table (running intersection property) and
 * every input table inside one step's table; and how many inputs are in no step's
 * table. O(steps^2 + inputs * steps) set checks.
 */
export function runningIntersection(
  steps: readonly ModelStep[],
  inputs: readonly Pick<MarginalTable, "attributes">[],
): { decomposable: boolean; unusedTables: number } {
  const stepSets = steps.map((s) => new Set(s.table.attributes));
  let decomposable = steps.every(
    (s, i) => s.given.length === 0 || stepSets.slice(0, i).some((set) => isSubset(s.given, set)),
  );
  let unusedTables = 0;
  for (const t of inputs) {
    if (!stepSets.some((set) => isSubset(t.attributes, set))) {
      unusedTables++;
      decomposable = false;
    }
  }
  return { decomposable, unusedTables };
}
