import { checkPostProcessing } from "./clip.js";

/**
 * Norm-Sub (Wang, Lopuhaä-Zwakenberg et al., "Locally differentially private
 * frequency estimation with consistency", NDSS 2020): repeatedly set negative
 * cells to 0 and subtract the same amount from every positive cell so the cells
 * sum to `total` (default 1), until no cell is negative. Cells set to 0 stay 0.
 * When the positive cells of the input sum to at least `total` (the usual case
 * for unbiased estimates) the result equals {@link projectOntoSimplex}: the cells
 * are `max(x - delta, 0)` with `sum = total`. Fractions in and out; writes into
 * `out` when given (may alias). O(D) per round, at most D rounds.
 */
export function normSub(
  estimate: ArrayLike<number>,
  total = 1,
  out: Float64Array = new Float64Array(estimate.length),
): Float64Array {
  checkPostProcessing("normSub", estimate, total, out);
  const cells = estimate.length;
  for (let i = 0; i < cells; i++) out[i] = estimate[i]!;
  const active = new Uint8Array(cells).fill(1);
  for (let round = 0; round <= cells; round++) {
    let sum = 0;
    let count = 0;
    for (let i = 0; i < cells; i++) {
      if (active[i] === 0) continue;
      if (out[i]! <= 0) {
        out[i] = 0;
        active[i] = 0;
        continue;
      }
      sum += out[i]!;
      count += 1;
    }
    if (count === 0) {
      out.fill(total / cells);
      return out;
    }
    const delta = (sum - total) / count;
    let negative = false;
    for (let i = 0; i < cells; i++) {
      if (active[i] === 0) continue;
      out[i]! -= delta;
      if (out[i]! <= 0) negative = true;
    }
    if (!negative) return out;
  }
  return out;
}
