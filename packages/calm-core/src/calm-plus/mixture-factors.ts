/** calm-plus's shrinkage factors: linear (Efron-Morris) and adaptive (scale mixture). */
import { mixtureWeights } from "../mixture-weights.js";

/**
 * Linear empirical-Bayes factors (Efron-Morris): prior N(0, A) with the moment
 * estimate A = max(0, mean(r^2 - tau^2)); factor A / (A + tau^2). O(N).
 */
export function momentFactors(residual: Float64Array, tau2: Float64Array): Float64Array {
  let excess = 0;
  for (let i = 0; i < residual.length; i++) excess += residual[i]! * residual[i]! - tau2[i]!;
  const signal = Math.max(0, excess / residual.length);
  return Float64Array.from(tau2, (t) => (signal + t > 0 ? signal / (signal + t) : 0));
}

/** Grid of prior scales of {@link mixtureFactors}: 0 and geometric steps of sqrt(2). */
const MIXTURE_STEP = Math.SQRT2;
/** EM iterations of {@link mixtureFactors} (the mixture weights' likelihood is concave). */
const MIXTURE_ITERATIONS = 200;

/**
 * Adaptive shrinkage factors (empirical Bayes with a scale-mixture prior, as in
 * Stephens' "ash", 2017): prior g = sum_s pi_s N(0, s^2) over a fixed grid of
 * scales s (0 included, geometric from min tau / 4 to 2 max |r|), weights pi
 * fitted by maximum marginal likelihood (EM: pi_s <- mean over coefficients of
 * the posterior weight of s, with r ~ N(0, s^2 + tau^2)); each coefficient's
 * factor is its posterior mean over r: sum_s w_s(r) s^2 / (s^2 + tau^2). Large
 * residuals are kept almost whole, small ones go to the target, with no
 * threshold to tune. Cost: O(N G) per EM iteration for N coefficients and G grid
 * points (G ~ 2 log2(range), about 30), 200 iterations.
 */
export function mixtureFactors(
  residual: Float64Array,
  tau2: Float64Array,
  logDensity?: Float64Array,
): Float64Array {
  const count = residual.length;
  let minTau = Number.POSITIVE_INFINITY;
  let maxResidual = 0;
  for (let i = 0; i < count; i++) {
    minTau = Math.min(minTau, Math.sqrt(tau2[i]!));
    maxResidual = Math.max(maxResidual, Math.abs(residual[i]!));
  }
  const scales = [0];
  for (let s = minTau / 4; s < 2 * Math.max(maxResidual, minTau); s *= MIXTURE_STEP) scales.push(s);
  const grid = scales.length;
  // likelihood[i * grid + g] = N(r_i; 0, s_g^2 + tau_i^2), without the common 1/sqrt(2 pi).
  const likelihood = new Float64Array(count * grid);
  for (let i = 0; i < count; i++)
    for (let g = 0; g < grid; g++) {
      const v = scales[g]! * scales[g]! + tau2[i]!;
      likelihood[i * grid + g] = Math.exp((-0.5 * residual[i]! * residual[i]!) / v) / Math.sqrt(v);
    }
  const weights = mixtureWeights(likelihood, count, grid, MIXTURE_ITERATIONS);
  const factors = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    let total = 0;
    let factor = 0;
    for (let g = 0; g < grid; g++) {
      const w = weights[g]! * likelihood[i * grid + g]!;
      total += w;
      const s2 = scales[g]! * scales[g]!;
      factor += (w * s2) / (s2 + tau2[i]!);
    }
    factors[i] = total > 0 ? factor / total : 0;
    if (logDensity) logDensity[i] = Math.log(total) - 0.5 * Math.log(2 * Math.PI);
  }
  return factors;
}
