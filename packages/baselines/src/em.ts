import type { EmDiagnostics, EmInitialization } from "./api.js";

/**
 * One attribute's randomized-response channel in a query table: GRR over
 * `cardinality` values, reporting the true value with probability p and each
 * other value with q = (1 - p) / (c - 1).
 */
export interface ChannelAxis {
  readonly cardinality: number;
  readonly p: number;
  readonly q: number;
}

/**
 * Apply the product channel `M = M_1 ⊗ ... ⊗ M_k` to a table in place (mixed
 * radix, first axis most significant): along each axis,
 * `(M_i x)[.., y, ..] = q_i * sum_v x[.., v, ..] + (p_i - q_i) x[.., y, ..]`.
 * Maps a distribution of true values to the distribution of reported values;
 * every `M_i` is symmetric, so this also applies `M^T`. O(k |V|).
 */
export function applyChannel(x: Float64Array, axes: readonly ChannelAxis[]): Float64Array {
  return alongAxes(x, axes, false);
}

/**
 * Apply the inverse channel in place: along each axis `x <- (x - q_i sum) /
 * (p_i - q_i)` (valid because the columns of M_i sum to 1). On the observed
 * report fractions this is the unbiased inclusion-exclusion estimate of the CALM
 * appendix (A.2), `T_A(v) = (C(v) - sum_{B ⊂ A} T_B(v_B) q^{|A|-|B|} (p - q)^{|B|})
 * / (p - q)^{|A|}`, computed for all subsets at once: expanding the product
 * channel gives `E[C(v)] = sum_{B ⊆ A} (p - q)^{|B|} q^{|A \ B|} T_B(v_B)`, whose
 * unique solution is `M^{-1} C`. O(k |V|).
 */
export function invertChannel(x: Float64Array, axes: readonly ChannelAxis[]): Float64Array {
  return alongAxes(x, axes, true);
}

function alongAxes(x: Float64Array, axes: readonly ChannelAxis[], inverse: boolean): Float64Array {
  let stride = x.length;
  for (const { cardinality: c, p, q } of axes) {
    stride /= c;
    const block = c * stride;
    const gap = p - q;
    for (let base = 0; base < x.length; base += block) {
      for (let t = 0; t < stride; t++) {
        let sum = 0;
        for (let v = 0; v < c; v++) sum += x[base + v * stride + t]!;
        for (let v = 0; v < c; v++) {
          const i = base + v * stride + t;
          x[i] = inverse ? (x[i]! - q * sum) / gap : q * sum + gap * x[i]!;
        }
      }
    }
  }
  return x;
}

/** Options of {@link runEm}. */
export interface RunEmOptions {
  readonly tolerance: number;
  readonly maxIterations: number;
  readonly initialization: EmInitialization;
  /** Weight of the uniform (over `support`) table mixed into a clipped inclusion-exclusion start. */
  readonly initialMix: number;
  /** Cells allowed to hold mass (e.g. codes that encode a value); default all. */
  readonly support?: Uint8Array;
}

/**
 * Expectation maximization for the true distribution over a query's cells from
 * the observed counts of reported combinations (Fanti et al.; Cormode et al.
 * §4.4; CALM appendix A.2): with `r = M x`, one update is
 * `x'[v] = x[v] * sum_y M[y][v] C(y) / (n r[y])` (E step and M step in one), i.e.
 * `x' = x ⊙ M^T (C / n ⊘ M x)`, which keeps x a distribution. Stops when no cell
 * moves by more than `tolerance`, or after `maxIterations` (reported as not
 * converged). Starts from the uniform table over `support` ("uniform", Cormode et
 * al.'s prior) or from the inclusion-exclusion estimate `M^{-1} C / n`, clipped at
 * 0, renormalised and mixed with `initialMix` of the uniform table so no cell
 * starts at 0 ("inclusion-exclusion", the CALM appendix). Diagnostics report the
 * iterations, convergence, whether the first update already stopped it
 * (`stoppedAtStart`) and whether that start was the uniform prior
 * (`stoppedAtPrior`: Cormode et al.'s Table 3 failure). O(k |V|) per iteration.
 */
export function runEm(
  observed: Float64Array,
  axes: readonly ChannelAxis[],
  options: RunEmOptions,
): { cells: Float64Array; diagnostics: EmDiagnostics } {
  const size = observed.length;
  const support = options.support;
  let supportSize = 0;
  for (let v = 0; v < size; v++) if (support === undefined || support[v] === 1) supportSize++;
  let n = 0;
  for (let y = 0; y < size; y++) n += observed[y]!;
  const uniform = new Float64Array(size);
  for (let v = 0; v < size; v++) if (support === undefined || support[v] === 1) uniform[v] = 1 / supportSize;
  if (n === 0) {
    return {
      cells: uniform,
      diagnostics: {
        iterations: 0,
        converged: true,
        lastChange: 0,
        initialization: options.initialization,
        stoppedAtStart: true,
        stoppedAtPrior: true,
        logLikelihood: 0,
        reports: 0,
      },
    };
  }
  const fractions = new Float64Array(size);
  for (let y = 0; y < size; y++) fractions[y] = observed[y]! / n;
  let x = Float64Array.from(uniform);
  if (options.initialization === "inclusion-exclusion") {
    const estimate = invertChannel(Float64Array.from(fractions), axes);
    let mass = 0;
    for (let v = 0; v < size; v++) {
      const value = support === undefined || support[v] === 1 ? Math.max(0, estimate[v]!) : 0;
      estimate[v] = value;
      mass += value;
    }
    if (mass > 0) {
      const mix = options.initialMix;
      for (let v = 0; v < size; v++) x[v] = (1 - mix) * (estimate[v]! / mass) + mix * uniform[v]!;
    }
  }
  let startDistance = 0;
  for (let v = 0; v < size; v++) startDistance = Math.max(startDistance, Math.abs(x[v]! - uniform[v]!));
  const predicted = new Float64Array(size);
  const ratio = new Float64Array(size);
  let next = new Float64Array(size);
  let iterations = 0;
  let change = Number.POSITIVE_INFINITY;
  let stoppedAtStart = false;
  while (iterations < options.maxIterations) {
    predicted.set(x);
    applyChannel(predicted, axes);
    for (let y = 0; y < size; y++) ratio[y] = fractions[y]! > 0 ? fractions[y]! / predicted[y]! : 0;
    applyChannel(ratio, axes);
    change = 0;
    for (let v = 0; v < size; v++) {
      next[v] = x[v]! * ratio[v]!;
      change = Math.max(change, Math.abs(next[v]! - x[v]!));
    }
    [x, next] = [next, x];
    iterations++;
    if (change <= options.tolerance) {
      stoppedAtStart = iterations === 1;
      break;
    }
  }
  predicted.set(x);
  applyChannel(predicted, axes);
  let logLikelihood = 0;
  for (let y = 0; y < size; y++)
    if (observed[y]! > 0) logLikelihood += observed[y]! * Math.log(predicted[y]!);
  return {
    cells: x,
    diagnostics: {
      iterations,
      converged: change <= options.tolerance,
      lastChange: change,
      initialization: options.initialization,
      stoppedAtStart,
      stoppedAtPrior: stoppedAtStart && startDistance <= options.tolerance,
      logLikelihood,
      reports: n,
    },
  };
}
