import type { MarginalTable } from "./api.js";
import { fail } from "./errors.js";
import { copyTable } from "./table.js";

/**
 * Norm-Sub in place, the one kernel (marginal tables and frequency-oracle
 * estimates both use it): make the cells non-negative and sum to `total` by
 * subtracting one amount from every positive cell. Each round sets the cells
 * `<= 0` to 0 for good and subtracts `delta = (sum of the others - total) / #others`
 * from the others, until no cell goes `<= 0`. When the positive cells sum to at
 * least `total` (always so when `total` is the cells' own sum and some are
 * negative) delta only grows and the result is the projection onto the simplex,
 * `max(x_i - delta, 0)` (Michelot, JOTA 50(1), 1986); otherwise mass is added to
 * the positive cells only. No positive cell at all gives `total / N` everywhere.
 * `total` must be >= 0 (the caller checks). O(N) a round, at most N rounds (few in
 * practice).
 */
export function normSubCells(cells: Float64Array, total: number): void {
  const n = cells.length;
  const active = new Uint8Array(n).fill(1);
  for (let round = 0; round <= n; round++) {
    let sum = 0;
    let count = 0;
    for (let i = 0; i < n; i++) {
      if (active[i] === 0) continue;
      if (cells[i]! <= 0) {
        cells[i] = 0;
        active[i] = 0;
        continue;
      }
      sum += cells[i]!;
      count += 1;
    }
    if (count === 0) {
      cells.fill(total / n);
      return;
    }
    const delta = (sum - total) / count;
    let clipped = false;
    for (let i = 0; i < n; i++) {
      if (active[i] === 0) continue;
      cells[i]! -= delta;
      if (cells[i]! <= 0) clipped = true;
    }
    if (!clipped) return;
  }
}

/**
 * @internal Norm-Sub of a table keeping its own total: unchanged when no cell is
 * negative, all zero when the total is 0, an error when the total is negative.
 */
export function normSubTableCells(cells: Float64Array, where = "normSub"): void {
  let total = 0;
  let negative = false;
  for (let u = 0; u < cells.length; u++) {
    total += cells[u]!;
    if (cells[u]! < 0) negative = true;
  }
  if (!negative) return;
  if (!(total >= 0)) fail(where, "the table total must be >= 0 to be kept by a non-negative table", total);
  if (total === 0) {
    cells.fill(0);
    return;
  }
  normSubCells(cells, total);
}

/**
 * Norm-Sub (../../../docs/algorithms.md#non-negativity; Wang et al., "Locally differentially private
 * frequency estimation with consistency", NDSS 2020): subtract one constant delta
 * from every cell and clip at 0, delta chosen so the total is kept
 * (`sum max(x_i - delta, 0) = total`). Returns a new table; a table without
 * negative cells comes back unchanged. The total must be >= 0. O(N) per round (few).
 */
export function normSub(table: MarginalTable): MarginalTable {
  const out = copyTable(table);
  normSubTableCells(out.cells);
  return out;
}
