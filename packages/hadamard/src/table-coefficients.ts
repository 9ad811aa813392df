import { coefficientsFromMarginal } from "./marginal-coefficients.js";
import { marginalizeBinary } from "./marginalize.js";

/**
 * The 2^k Hadamard coefficients `theta_alpha`, `alpha ⊆ beta`, of a full binary
 * table over `d` attributes (a distribution over {0,1}^d gives
 * `theta_alpha = E[(-1)^{|j ∧ alpha|}]`, ../../../docs/algorithms.md#hadamard-methods). Indexed in the local
 * order of {@link coefficientsFromMarginal} (bit `k - 1 - i` stands for `beta[i]`).
 * Marginalise, then transform: O(2^d + k 2^k), instead of O(d 2^d) for the whole
 * table's FWHT. Writes into `out` (length 2^|beta|) when given.
 */
export function coefficientsFromTable(
  table: ArrayLike<number>,
  d: number,
  beta: ArrayLike<number>,
  out?: Float64Array,
): Float64Array {
  const marginal = marginalizeBinary(table, d, beta, out);
  return coefficientsFromMarginal(marginal, marginal);
}
