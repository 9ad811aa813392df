import type { MarginalTable, RippleOptions } from "./api.js";
import { fail } from "./errors.js";
import { copyTable } from "./table.js";

/**
 * @internal Ripple in place on cells of a table with `cardinalities`. While some
 * cell is below `-threshold * |total|`, set it to 0 and subtract its negative mass
 * evenly from its neighbours (the `sum_j (c_j - 1)` cells that differ from it in
 * exactly one attribute value); sweeps run over the cells in index order. Then
 * (and also when `maxSteps` moves were made) zero what is still negative and take
 * that mass from the positive cells in proportion to their size. Keeps the total.
 * O(steps * sum_j (c_j - 1) + N).
 */
export function rippleCells(
  cells: Float64Array,
  cardinalities: readonly number[],
  options: RippleOptions = {},
  where = "ripple",
): void {
  const threshold = options.threshold ?? 1e-6;
  if (!(threshold >= 0) || !Number.isFinite(threshold))
    fail(where, "threshold must be a finite number >= 0", threshold);
  const n = cells.length;
  const maxSteps = options.maxSteps ?? 1000 * n;
  if (!(maxSteps >= 0)) fail(where, "maxSteps must be >= 0", maxSteps);
  let total = 0;
  let negative = false;
  for (let u = 0; u < n; u++) {
    total += cells[u];
    if (cells[u] < 0) negative = true;
  }
  if (!negative) return;
  if (!(total >= 0)) fail(where, "the table total must be >= 0 to be kept by a non-negative table", total);
  const k = cardinalities.length;
  const strides = new Array<number>(k);
  let stride = 1;
  let degree = 0;
  for (let j = k - 1; j >= 0; j--) {
    strides[j] = stride;
    stride *= cardinalities[j]!;
    degree += cardinalities[j]! - 1;
  }
  const bound = -threshold * Math.abs(total);
  // Add `share` to every neighbour of cell u.
  const spread = cardinalities.every((c) => c === 2)
    ? (u: number, share: number) => {
        // Binary tables: the neighbour along attribute j is u XOR stride_j.
        for (let j = 0; j < k; j++) cells[u ^ strides[j]!] += share;
      }
    : (u: number, share: number) => {
        for (let j = 0; j < k; j++) {
          const s = strides[j];
          const c = cardinalities[j]!;
          const v = Math.floor(u / s) % c;
          const base = u - v * s;
          for (let w = 0; w < c; w++) if (w !== v) cells[base + w * s] += share;
        }
      };
  let steps = 0;
  let moved = true;
  while (moved && steps < maxSteps && degree > 0) {
    moved = false;
    for (let u = 0; u < n && steps < maxSteps; u++) {
      const x = cells[u];
      if (x >= bound) continue;
      cells[u] = 0;
      spread(u, x / degree);
      steps++;
      moved = true;
    }
  }
  // Clean-up: negatives at or above the bound (or left by the step cap).
  let negativeMass = 0;
  let positiveMass = 0;
  for (let u = 0; u < n; u++) {
    if (cells[u] < 0) negativeMass -= cells[u];
    else positiveMass += cells[u];
  }
  if (negativeMass === 0) return;
  const keep = positiveMass > 0 ? Math.max(0, (positiveMass - negativeMass) / positiveMass) : 0;
  for (let u = 0; u < n; u++) cells[u] = cells[u] < 0 ? 0 : cells[u] * keep;
}

/**
 * Ripple non-negativity (../../../docs/algorithms.md#non-negativity; PriView's method, named in the CALM
 * appendix A.3): a cell below `-threshold * |total|` is set to 0 and its negative
 * mass is taken out of its neighbours (cells differing in exactly one attribute
 * value), spread evenly; repeated until no cell is below the bound. The tiny
 * negatives left are then zeroed and their mass taken from the positive cells in
 * proportion, so the result is exactly non-negative with the same total. Returns a
 * new table; the total must be >= 0. O(steps * sum_j (c_j - 1) + N).
 */
export function ripple(table: MarginalTable, options: RippleOptions = {}): MarginalTable {
  const out = copyTable(table);
  rippleCells(out.cells, out.cardinalities, options);
  return out;
}
