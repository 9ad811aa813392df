import { marginalFromCoefficients } from "@calm-ldp/hadamard";
import type { IntervalAnswer, IntervalTable } from "./analytic-interval.js";
import { decodeCovariance, intervalOfAnswer, subtractPartitionTerm } from "./analytic-interval.js";
import type { HadamardPlan } from "./api.js";

/**
 * Analytic interval of InpHT (and FT): the answer is linear in the coefficient
 * estimates. A user assigned to entry alpha reports sign y with E[y] = (2p - 1)
 * theta_alpha and Var(y) = 1 - (2p - 1)^2 theta_alpha^2 (RR noise plus which
 * users landed on alpha), so theta^_alpha = mean(y) / (2p - 1) has
 *   Var(theta^_alpha) = [1 / (2p - 1)^2 - theta_alpha^2] / c_alpha,
 * independently across entries (different users). A cell over k_b bits is
 * M[gamma] = 2^-k_b sum_{alpha ⊆ beta} (-1)^{|gamma ∧ alpha|} theta_alpha with
 * theta_empty = 1, hence the same variance for every cell:
 *   Var(M[gamma]) = 4^-k_b sum_{alpha ≠ empty} Var(theta^_alpha) - f_gamma (1 - f_gamma) / n,
 * the last term because the entries' user sets partition the population (the
 * same linear combination of exact population coefficients is the true cell).
 * Decoding keeps valid codes' cells as they are. Plug-in theta clipped to
 * [-1, 1]; an entry with no report counts variance 1 (its 0 is off by at most 1).
 * Interval: linear answer +- z SE, clipped to [0, 1]; `table` is the released
 * answer (with the method's post-processing, if any). O(2^k_b) per query.
 */
export function hadamardInterval(
  plan: HadamardPlan,
  theta: Float64Array,
  counts: Uint32Array,
  lookup: Int32Array,
  answer: IntervalAnswer,
): IntervalTable {
  const local = new Float64Array(lookup.length);
  local[0] = 1;
  let n = 0;
  for (let e = 0; e < counts.length; e++) n += counts[e]!;
  const coefficientVariance = new Float64Array(lookup.length);
  for (let m = 1; m < lookup.length; m++) {
    const e = lookup[m]!;
    local[m] = theta[e]!;
    coefficientVariance[m] = coefficientVarianceOf(plan, theta[e]!, counts[e]!);
  }
  return coefficientInterval(local, coefficientVariance, n, answer);
}

/**
 * Var(theta^_alpha) = [1/(2p-1)^2 - theta_alpha^2] / c_alpha with the plug-in theta
 * clipped to [-1, 1]; 1 for an entry with no report (its 0 is off by at most 1). O(1).
 */
export function coefficientVarianceOf(plan: Pick<HadamardPlan, "p">, theta: number, count: number): number {
  const scale = 2 * plan.p - 1;
  const t = Math.max(-1, Math.min(1, theta));
  return count > 0 ? (1 / (scale * scale) - t * t) / count : 1;
}

/**
 * The interval of a bit marginal given by its local coefficients `local`
 * (local[0] = 1; entry m over the query's bits) with independent coefficient
 * errors of variances `coefficientVariance` (see {@link hadamardInterval}; MargHT
 * passes the mean over its groups and variances / u^2): every bit cell has
 * variance 4^-k_b sum_m V_m, minus f (1 - f) / n for the users' partition;
 * covariance (asked) from the transform at g XOR h. O(2^k_b) per query
 * (O(4^k_b) with the covariance).
 */
export function coefficientInterval(
  local: Float64Array,
  coefficientVariance: Float64Array,
  n: number,
  answer: IntervalAnswer,
): IntervalTable {
  let sum = 0;
  for (let m = 1; m < local.length; m++) sum += coefficientVariance[m]!;
  const base = sum / local.length ** 2;
  // The linear cells, before any post-processing (marginalFromCoefficients is in place).
  const center = answer.linear(transformed(Float64Array.from(local))).cells;
  const table = answer.released(transformed(Float64Array.from(local)));
  let total = 0;
  for (const x of center) total += Math.max(0, x);
  const variance = center.map((x) => {
    const f = total > 0 ? Math.max(0, x) / total : 0;
    return base - (n > 0 ? (f * (1 - f)) / n : 0);
  });
  let covariance: Float64Array | undefined;
  if (answer.options.covariance === true) {
    // Bit cells: Cov(M[g], M[h]) = 4^-k_b sum_alpha (-1)^{|g ∧ alpha| + |h ∧ alpha|} Var(theta_alpha),
    // i.e. the transform of the coefficient variances at g XOR h; then decoding, then the partition term.
    const size = local.length;
    const byXor = transformed(Float64Array.from(coefficientVariance)); // 2^-k_b sum_alpha (-1)^{|x ∧ alpha|} V_alpha
    const bits = new Float64Array(size * size);
    for (let g = 0; g < size; g++) for (let h = 0; h < size; h++) bits[g * size + h] = byXor[g ^ h]! / size;
    covariance = decodeCovariance(bits, size, answer.linear);
    subtractPartitionTerm(covariance, center, n);
  }
  return intervalOfAnswer(answer, table, center, variance, covariance);
}

/** Cells of the bit marginal from its local coefficients (a copy; in place on it). */
function transformed(coefficients: Float64Array): Float64Array {
  return marginalFromCoefficients(coefficients, coefficients);
}
