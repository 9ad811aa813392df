import type { MarginalTable, NonNegativityMethod, NonNegativityOptions } from "./api.js";
import { fail } from "./errors.js";
import { normCutCells } from "./norm-cut.js";
import { normSubTableCells } from "./norm-sub.js";
import { rippleCells } from "./ripple.js";
import { copyTable } from "./table.js";

/**
 * The default non-negativity method: ripple, chosen by the measured SSE comparison
 * in packages/experiments/studies/nonnegativity.ts (CALM end to end on Adult and synthetic
 * data, 25 settings x 20 repetitions: ripple had the lowest mean query SSE most
 * often and is within 0.1% of the best on geometric average; norm-sub 1.1%,
 * norm-cut 12%; full table in the package README).
 */
export const DEFAULT_NON_NEGATIVITY: NonNegativityMethod = "ripple";

const METHODS: readonly NonNegativityMethod[] = ["ripple", "norm-sub", "norm-cut"];

/** @internal Apply a method in place to one table's cells. */
export function nonNegativeCells(
  cells: Float64Array,
  cardinalities: readonly number[],
  options: NonNegativityOptions,
  where: string,
): void {
  const method = options.method ?? DEFAULT_NON_NEGATIVITY;
  if (method === "norm-sub") normSubTableCells(cells, where);
  else if (method === "norm-cut") normCutCells(cells, where);
  else if (method === "ripple") rippleCells(cells, cardinalities, options, where);
  else fail(where, `method must be one of ${METHODS.join(", ")}`, method);
}

/**
 * Make one table non-negative with the chosen method (default
 * {@link DEFAULT_NON_NEGATIVITY}), keeping its total (../../../docs/algorithms.md#non-negativity). Returns a
 * new table. Cost: O(N) per iteration (few) for norm-sub, O(N log N) for norm-cut, O(steps * sum_j (c_j - 1)
 * + N) for ripple.
 */
export function makeNonNegative(table: MarginalTable, options: NonNegativityOptions = {}): MarginalTable {
  const out = copyTable(table);
  nonNegativeCells(out.cells, out.cardinalities, options, "makeNonNegative");
  return out;
}
