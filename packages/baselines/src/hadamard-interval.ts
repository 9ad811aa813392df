import type { CalmIntervalOptions, CalmIntervalTable } from "@calm-ldp/calm-core";
import { normalQuantile } from "@calm-ldp/calm-core";
import { marginalFromCoefficients } from "@calm-ldp/hadamard";
import type { MarginalTable } from "@calm-ldp/marginal-algebra";
import type { HadamardPlan } from "./api.js";
import { fail } from "./errors.js";

/** Options of a query with an interval: `{ interval: 0.95 }` (the method field of CALM's options is ignored). */
export type IntervalOptions = Pick<CalmIntervalOptions, "interval">;

/** A released table with a confidence interval per cell (the same shape as CALM's). */
export type IntervalTable = CalmIntervalTable;

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
  options: IntervalOptions,
  linear: (cells: Float64Array) => MarginalTable,
  released: (cells: Float64Array) => MarginalTable,
): IntervalTable {
  const where = `${plan.method}.query`;
  const level = options?.interval;
  if (!(typeof level === "number" && level > 0 && level < 1))
    fail(where, "interval must be a confidence level in (0, 1)", level);
  const z = normalQuantile(0.5 + level / 2);
  const scale = 2 * plan.p - 1;
  const local = new Float64Array(lookup.length);
  local[0] = 1;
  let sum = 0;
  let n = 0;
  for (let e = 0; e < counts.length; e++) n += counts[e]!;
  for (let m = 1; m < lookup.length; m++) {
    const e = lookup[m]!;
    local[m] = theta[e]!;
    const c = counts[e]!;
    const t = Math.max(-1, Math.min(1, theta[e]!));
    sum += c > 0 ? (1 / (scale * scale) - t * t) / c : 1;
  }
  const base = sum / lookup.length ** 2;
  // The linear cells, before any post-processing (marginalFromCoefficients is in place).
  const bitCells = Float64Array.from(local);
  const center = linear(transformed(bitCells)).cells;
  const table = released(transformed(Float64Array.from(local)));
  const standardError = new Float64Array(center.length);
  const lower = new Float64Array(center.length);
  const upper = new Float64Array(center.length);
  let total = 0;
  for (const x of center) total += Math.max(0, x);
  center.forEach((x, a) => {
    const f = total > 0 ? Math.max(0, x) / total : 0;
    const variance = Math.max(0, base - (n > 0 ? (f * (1 - f)) / n : 0));
    standardError[a] = Math.sqrt(variance);
    lower[a] = Math.min(1, Math.max(0, x - z * standardError[a]!));
    upper[a] = Math.min(1, Math.max(0, x + z * standardError[a]!));
  });
  return {
    ...table,
    level,
    lower,
    upper,
    standardError,
    intervalMethod: "analytic",
    center,
    replicates: 0,
  };
}

/** Cells of the bit marginal from its local coefficients (a copy; in place on it). */
function transformed(coefficients: Float64Array): Float64Array {
  return marginalFromCoefficients(coefficients, coefficients);
}
