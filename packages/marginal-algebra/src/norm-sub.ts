import type { MarginalTable } from "./api.js";
import { fail } from "./errors.js";
import { copyTable } from "./table.js";

/**
 * @internal Norm-Sub in place on cells: find `delta` with
 * `sum_i max(x_i - delta, 0) = total` and set `x_i <- max(x_i - delta, 0)`.
 * delta solves the piecewise-linear equation exactly by Michelot's iteration
 * (Michelot, JOTA 50(1), 1986): with the active cells {x_i > delta}, set
 * `delta <- (sum of active - total) / #active`; delta only grows and the active
 * set only shrinks, so it stops, exactly, when the active set is unchanged. Each
 * iteration O(N); a handful are needed when few cells are negative. O(N) when no
 * cell is negative (then nothing changes).
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
  let delta = 0;
  let active = -1;
  for (;;) {
    let sum = 0;
    let count = 0;
    for (let u = 0; u < cells.length; u++) {
      if (cells[u] > delta) {
        sum += cells[u];
        count++;
      }
    }
    const next = (sum - total) / count;
    if (count === active || !(next > delta)) break;
    active = count;
    delta = next;
  }
  for (let u = 0; u < cells.length; u++) cells[u] = cells[u] > delta ? cells[u] - delta : 0;
}

/**
 * Norm-Sub (ALGORITHMS.md §3.3; Wang et al., "Locally differentially private
 * frequency estimation with consistency", NDSS 2020): subtract one constant delta
 * from every cell and clip at 0, delta chosen so the total is kept
 * (`sum max(x_i - delta, 0) = total`). Returns a new table; a table without
 * negative cells comes back unchanged. The total must be >= 0. O(N) per Michelot iteration (few).
 */
export function normSub(table: MarginalTable): MarginalTable {
  const out = copyTable(table);
  normSubCells(out.cells);
  return out;
}
