import type { MarginalTable } from "./api.js";
import { fail } from "./errors.js";
import { copyTable } from "./table.js";

/**
 * @internal Norm-Cut in place on cells: zero the negative cells, then remove the
 * same mass M from the positive cells, smallest first (each zeroed while M covers
 * it, the last one reduced by what is left of M). O(N log N); O(N) when no cell is
 * negative.
 */
export function normCutCells(cells: Float64Array, where = "normCut"): void {
  let mass = 0;
  let total = 0;
  const positive: number[] = [];
  for (let u = 0; u < cells.length; u++) {
    total += cells[u];
    if (cells[u] < 0) {
      mass -= cells[u];
      cells[u] = 0;
    } else if (cells[u] > 0) positive.push(u);
  }
  if (mass === 0) return;
  if (!(total >= 0)) fail(where, "the table total must be >= 0 to be kept by a non-negative table", total);
  positive.sort((a, b) => cells[a] - cells[b] || a - b);
  for (const u of positive) {
    if (cells[u] <= mass) {
      mass -= cells[u];
      cells[u] = 0;
    } else {
      cells[u] -= mass;
      return;
    }
  }
}

/**
 * Norm-Cut (ALGORITHMS.md §3.3): zero the negative cells and remove the same mass
 * from the smallest positive cells upward, so the total is kept and the large
 * cells are untouched. Returns a new table; the total must be >= 0. O(N log N).
 */
export function normCut(table: MarginalTable): MarginalTable {
  const out = copyTable(table);
  normCutCells(out.cells);
  return out;
}
