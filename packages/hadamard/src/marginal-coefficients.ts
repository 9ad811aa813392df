import { log2Length } from "./check.js";
import { fail } from "./errors.js";
import { fwht } from "./fwht.js";

function prepare(where: string, input: ArrayLike<number>, out: Float64Array | undefined): Float64Array {
  log2Length(where, "input", input.length);
  if (out !== undefined && out.length !== input.length) {
    fail(where, `out.length must equal the input length ${input.length}`, out.length);
  }
  const target = out ?? new Float64Array(input.length);
  if (target !== input) for (let i = 0; i < input.length; i++) target[i] = input[i]!;
  return target;
}

/**
 * The 2^k Hadamard coefficients of a k-way binary marginal over `beta`:
 * `theta_alpha = sum_gamma (-1)^{|gamma ∧ alpha|} M_beta[gamma]` for every
 * `alpha ⊆ beta` (../../../docs/algorithms.md#hadamard-methods). Both vectors use the local table order: bit
 * `k - 1 - i` of a cell or coefficient index stands for `beta[i]` (first attribute
 * most significant), so `theta[0]` is the table's total (1 for fractions).
 * Unnormalised FWHT: O(k 2^k). Writes into `out` when given (may be `marginal`).
 */
export function coefficientsFromMarginal(marginal: ArrayLike<number>, out?: Float64Array): Float64Array {
  return fwht(prepare("coefficientsFromMarginal", marginal, out));
}

/**
 * The k-way marginal from its 2^k coefficients, the formula of ../../../docs/algorithms.md#hadamard-methods:
 * `M_beta[gamma] = 2^-k sum_{alpha ⊆ beta} (-1)^{|gamma ∧ alpha|} theta_alpha`
 * (the inverse of {@link coefficientsFromMarginal}; same local order). Estimated
 * coefficients give cells that can be negative. O(k 2^k). Writes into `out` when
 * given (may be `coefficients`).
 */
export function marginalFromCoefficients(coefficients: ArrayLike<number>, out?: Float64Array): Float64Array {
  return fwht(prepare("marginalFromCoefficients", coefficients, out), { scaling: "inverse" });
}
