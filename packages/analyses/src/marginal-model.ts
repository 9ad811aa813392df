import type { MarginalTable } from "@calm-ldp/marginal-algebra";
import type { SamplingModel } from "./api.js";
import { checkTable } from "./sample-model.js";

/**
 * The sampling model of one released k-way marginal: a single step drawing all
 * of its attributes jointly from the table (negative cells count as 0, the rest
 * is normalised). This is the trivial junction tree, so `decomposable` is true.
 * O(1) (the table is checked in O(|V_A|)).
 */
export function marginalModel(table: MarginalTable): SamplingModel {
  checkTable("marginalModel", table, 0);
  return {
    attributes: [...table.attributes],
    cardinalities: [...table.cardinalities],
    steps: [{ table, given: [], fresh: [...table.attributes] }],
    decomposable: true,
    unusedTables: 0,
  };
}
