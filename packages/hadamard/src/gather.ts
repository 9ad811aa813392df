import type { CoefficientIndex } from "./api.js";
import { checkAttributes } from "./check.js";
import { fail } from "./errors.js";
import { marginalFromCoefficients } from "./marginal-coefficients.js";

/**
 * The local coefficient vector of `beta` from a ranked vector over the index set T
 * of `index` (`ranked[index.rank(alpha)] = theta_alpha`, as InpHT estimates it):
 * `out[a] = theta_alpha` for the subset `alpha ⊆ beta` whose local mask is `a` (bit
 * `k - 1 - i` stands for `beta[i]`), and `out[0] = theta_∅ = 1` (fractions).
 * Requires `|beta| <= index.k`. O(k 2^k).
 */
export function gatherCoefficients(
  ranked: ArrayLike<number>,
  index: CoefficientIndex,
  beta: ArrayLike<number>,
  out?: Float64Array,
): Float64Array {
  const k = checkAttributes("gatherCoefficients", "beta", beta, index.d);
  if (k > index.k) fail("gatherCoefficients", `|beta| must be <= index.k = ${index.k}`, k);
  if (ranked.length !== index.size)
    fail("gatherCoefficients", `ranked.length must be index.size = ${index.size}`, ranked.length);
  const cells = 1 << k;
  if (out !== undefined && out.length !== cells)
    fail("gatherCoefficients", `out.length must be 2^|beta| = ${cells}`, out.length);
  const result = out ?? new Float64Array(cells);
  result[0] = 1;
  const alpha: number[] = [];
  for (let mask = 1; mask < cells; mask++) {
    alpha.length = 0;
    for (let i = 0; i < k; i++) if ((mask >>> (k - 1 - i)) & 1) alpha.push(beta[i]!);
    result[mask] = ranked[index.rank(alpha)]!;
  }
  return result;
}

/**
 * The k-way marginal over `beta` (fractions, local table order) from ranked
 * coefficient estimates: {@link gatherCoefficients} then
 * {@link marginalFromCoefficients}, i.e.
 * `M_beta[gamma] = 2^-k (1 + sum_{∅ ≠ alpha ⊆ beta} (-1)^{|gamma ∧ alpha|} theta_alpha)`
 * (../../../docs/algorithms.md#hadamard-methods). Cells sum to 1 exactly; they can be negative. O(k 2^k).
 */
export function marginalFromRankedCoefficients(
  ranked: ArrayLike<number>,
  index: CoefficientIndex,
  beta: ArrayLike<number>,
  out?: Float64Array,
): Float64Array {
  const local = gatherCoefficients(ranked, index, beta, out);
  return marginalFromCoefficients(local, local);
}
