import { chiSquareSurvival } from "./chi-square-distribution.js";
import { fail } from "./errors.js";
import { checkCovariance, significanceLevel } from "./hypothesis-inputs.js";
import { psdFactor } from "./noise-aware-chi-square.js";

/** What the goodness-of-fit test needs of a private answer (an interval answer with `covariance: true`). */
export interface PrivateTable {
  /** The unbiased (linear) estimate, fractions (may be negative). */
  readonly center: Float64Array;
  /** Its covariance, row-major cells x cells. */
  readonly covariance: Float64Array;
}

/** The noise-aware goodness-of-fit test's outcome. */
export interface NoiseAwareGoodnessOfFit {
  /** Q = (t - p0)^T S^- (t - p0). */
  readonly statistic: number;
  /** Degrees of freedom: the rank of S (directions with no noise, e.g. a fixed total, are left out). */
  readonly dof: number;
  readonly pValue: number;
  readonly reject: boolean;
}

/**
 * Goodness-of-fit of a private table to a hypothesised distribution p0 with a
 * valid null under the oracle's noise: with the unbiased estimate t and its
 * covariance S (the release's, as the intervals compute it), Q = (t - p0)^T S^-
 * (t - p0) (S^- through the pivoted Cholesky factor; null directions skipped) is
 * chi-square(rank S) when t ~ N(p0, S), the normal approximation of the counts.
 * Unlike Pearson's statistic on the private table (which reads the LDP noise as
 * lack of fit), its type I error is the nominal alpha. `expected` is normalised.
 * O(cells^3).
 */
export function noiseAwareGoodnessOfFit(
  answer: PrivateTable,
  expected: ArrayLike<number>,
  options: { readonly alpha?: number } = {},
): NoiseAwareGoodnessOfFit {
  const where = "noiseAwareGoodnessOfFit";
  const size = answer?.center?.length ?? 0;
  if (size < 2) fail(where, "answer must have a center of at least 2 cells", size);
  checkCovariance(where, answer.covariance, size);
  if (expected?.length !== size) fail(where, `expected must have ${size} cells`, expected?.length);
  let mass = 0;
  for (let i = 0; i < size; i++) {
    const x = expected[i]!;
    if (!(x >= 0 && Number.isFinite(x))) fail(where, `expected[${i}] must be finite and >= 0`, x);
    mass += x;
  }
  if (!(mass > 0)) fail(where, "expected must have a positive sum", mass);
  const alpha = significanceLevel(where, options.alpha);
  const L = psdFactor(answer.covariance, size);
  let statistic = 0;
  let dof = 0;
  const y = new Float64Array(size);
  for (let i = 0; i < size; i++) {
    const pivot = L[i * size + i]!;
    if (pivot === 0) continue;
    dof++;
    let x = answer.center[i]! - expected[i]! / mass;
    for (let k = 0; k < i; k++) x -= L[i * size + k]! * y[k]!;
    y[i] = x / pivot;
    statistic += y[i]! * y[i]!;
  }
  const pValue = dof > 0 ? chiSquareSurvival(statistic, dof) : 1;
  return { statistic, dof, pValue, reject: pValue <= alpha };
}
