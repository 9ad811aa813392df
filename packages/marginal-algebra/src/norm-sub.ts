import type { MarginalTable } from "./api.js";
import { fail } from "./errors.js";
import { copyTable } from "./table.js";

/**
 * @internal Norm-Sub in place on cells: find `delta` with
 * `sum_i max(x_i - delta, 0) = total` and set `x_i <- max(x_i - delta, 0)`.
 * Sorted closed form: with cells sorted descending and prefix sums S_j, delta =
 * (S_j - total) / j for the largest j with x_(j) > (S_j - total) / j. O(N log N);
 * O(N) when no cell is negative (then nothing changes).
 */
export function normSubCells(cells: Float64Array, where = "normSub"): void {
  let total = 0;
  let negative = false;
  for (let u = 0; u < cells.length; u++) {
    total += cells[u];
    if (cells[u] < 0) negative = true;
  }
  if (!negative) return;
  if (!(total >= 0)) fail(where, "the table total must be >= 0 to be kept by a non-negative table", total);
  if (total === 0) {
    cells.fill(0);
    return;
  }
  const sorted = Float64Array.from(cells).sort().reverse();
  let prefix = 0;
  let delta = 0;
  for (let j = 0; j < sorted.length; j++) {
    prefix += sorted[j];
    const candidate = (prefix - total) / (j + 1);
    if (sorted[j] > candidate) delta = candidate;
    else break;
  }
  for (let u = 0; u < cells.length; u++) cells[u] = cells[u] > delta ? cells[u] - delta : 0;
}

/**
 * Norm-Sub (ALGORITHMS.md §3.3; Wang et al., "Locally differentially private
 * frequency estimation with consistency", NDSS 2020): subtract one constant delta
 * from every cell and clip at 0, delta chosen so the total is kept
 * (`sum max(x_i - delta, 0) = total`). Returns a new table; a table without
 * negative cells comes back unchanged. The total must be >= 0. O(N log N).
 */
export function normSub(table: MarginalTable): MarginalTable {
  const out = copyTable(table);
  normSubCells(out.cells);
  return out;
}
