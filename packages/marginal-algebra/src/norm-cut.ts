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
  let positives = 0;
  for (let u = 0; u < cells.length; u++) {
    total += cells[u];
    if (cells[u] < 0) mass -= cells[u];
    else if (cells[u] > 0) positives++;
  }
  if (mass === 0) return;
  if (!(total >= 0)) fail(where, "the table total must be >= 0 to be kept by a non-negative table", total);
  // Sorted positive values (a numeric typed-array sort, no comparator).
  const sorted = new Float64Array(positives);
  let at = 0;
  for (let u = 0; u < cells.length; u++) {
    if (cells[u] < 0) cells[u] = 0;
    else if (cells[u] > 0) sorted[at++] = cells[u];
  }
  sorted.sort();
  // The cut value: every positive cell below it is zeroed; of the cells equal to it,
  // the first `equalZeroed` (in index order) are zeroed and the next loses `rest`.
  let cut = Number.POSITIVE_INFINITY;
  let rest = 0;
  let below = 0;
  for (let j = 0; j < sorted.length; j++) {
    if (sorted[j] <= mass) {
      mass -= sorted[j];
      continue;
    }
    cut = sorted[j];
    rest = mass;
    below = j;
    break;
  }
  if (cut === Number.POSITIVE_INFINITY) {
    cells.fill(0);
    return;
  }
  let equalZeroed = 0;
  for (let j = 0; j < below; j++) if (sorted[j] === cut) equalZeroed++;
  for (let u = 0; u < cells.length; u++) {
    const x = cells[u];
    if (x <= 0 || x > cut) continue;
    if (x < cut) cells[u] = 0;
    else if (equalZeroed > 0) {
      cells[u] = 0;
      equalZeroed--;
    } else if (rest >= 0) {
      cells[u] = x - rest;
      rest = -1;
    }
  }
}

/**
 * Norm-Cut (../../../docs/algorithms.md#non-negativity): zero the negative cells and remove the same mass
 * from the smallest positive cells upward, so the total is kept and the large
 * cells are untouched. Returns a new table; the total must be >= 0. O(N log N).
 */
export function normCut(table: MarginalTable): MarginalTable {
  const out = copyTable(table);
  normCutCells(out.cells);
  return out;
}
