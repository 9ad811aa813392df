import { binomial, type Rng } from "@calm-ldp/random";

/**
 * Per-cell count-level simulation of a support oracle: `C(x) = Binomial(N_x, p) +
 * Binomial(N - N_x, q)`, drawn independently per cell. Each cell has exactly the
 * per-user distribution (reports are independent, each supports x with
 * probability p or q); cross-cell dependence is not reproduced. Exact and joint
 * for unary encodings, whose bits are independent (../../../docs/algorithms.md#frequency-oracles, OUE).
 * O(D) binomial draws, each O(1) expected.
 */
export function simulateSupportPerCell(
  trueCounts: ArrayLike<number>,
  total: number,
  p: number,
  q: number,
  rng: Rng,
  out: Float64Array,
): Float64Array {
  for (let x = 0; x < trueCounts.length; x++) {
    const own = trueCounts[x]!;
    out[x] = binomial(rng, own, p) + binomial(rng, total - own, q);
  }
  return out;
}
