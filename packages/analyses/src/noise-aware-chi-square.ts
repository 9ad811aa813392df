import { createTable } from "@calm-ldp/marginal-algebra";
import { type Rng, seededRng } from "@calm-ldp/random";
import { chiSquareIndependence } from "./chi-square-test.js";
import { fail } from "./errors.js";
import { checkCovariance, significanceLevel, userCount } from "./hypothesis-inputs.js";

/** What the noise-aware test needs of a private 2-way answer (a baselines/calm-core interval answer with `covariance: true`). */
export interface PrivateTwoWay {
  readonly attributes: readonly number[];
  readonly cardinalities: readonly number[];
  /** The unbiased (linear) estimate of the table, fractions (may be negative). */
  readonly center: Float64Array;
  /** Its covariance, row-major cells x cells, from the oracle's noise and the sampling of groups. */
  readonly covariance: Float64Array;
}

/** Options of {@link noiseAwareChiSquare}. */
export interface NoiseAwareChiSquareOptions {
  /** Significance level (default 0.05). */
  readonly alpha?: number;
  /** Null replicates B (default 1000). */
  readonly replicates?: number;
  /** Source of the null draws (default `seededRng(0)`). */
  readonly rng?: Rng;
  /**
   * The statistic calibrated: "wald" (default) D^T S_D^-1 D on the deviations
   * from independence D_ij = t_ij - r_i c_j (i < r-1, j < c-1) with S_D their
   * delta-method covariance under the noise (nearly pivotal), or "pearson"
   * (Pearson's statistic as on a non-private table).
   */
  readonly statistic?: "wald" | "pearson";
}

/** The noise-aware test's outcome. */
export interface NoiseAwareChiSquareTest {
  /** The calibrated statistic on the private estimate (see `statistic` of the options). */
  readonly statistic: number;
  /** Monte-Carlo p-value (1 + #{T* >= T}) / (B + 1) under the fitted independence null. */
  readonly pValue: number;
  readonly reject: boolean;
  readonly replicates: number;
  /** The (1 - alpha) quantile of the null replicates: the noise-aware critical value. */
  readonly critical: number;
  /** The plug-in test's p-value (chi-square reference, noise ignored), for comparison. */
  readonly plugInPValue: number;
}

/**
 * Chi-square independence test on a private 2-way table whose null distribution
 * accounts for the noise (a parametric bootstrap of the statistic under the
 * independence null fitted from the private marginals). With the unbiased
 * estimate t (cells) and its covariance S (from the oracle's variance formulas,
 * as the intervals compute it): fit the null P0 = r c^T from t's row and column
 * margins (clipped at 0, normalised), draw B tables t* = P0 + L z (L L^T = S, z
 * standard normal: the estimate's law under the null, to the normal approximation
 * of the counts), compute the same Pearson statistic T* = n sum (t*_ij - r*_i
 * c*_j)^2 / (r*_i c*_j) on each, and report p = (1 + #{T* >= T}) / (B + 1);
 * reject when p <= alpha. The plug-in test compares T with chi-square(dof), which
 * is the null law only when the noise is negligible: LDP noise of variance s^2
 * per cell inflates T by about n s^2 / (r_i c_j) per cell, so the plug-in test
 * rejects independent pairs far more often than alpha. Cost: O(cells^3) for L,
 * then B * O(cells^2).
 */
export function noiseAwareChiSquare(
  answer: PrivateTwoWay,
  n: number,
  options: NoiseAwareChiSquareOptions = {},
): NoiseAwareChiSquareTest {
  const where = "noiseAwareChiSquare";
  if (answer?.cardinalities?.length !== 2) fail(where, "answer must be a 2-way table", answer?.cardinalities);
  const [rows, cols] = answer.cardinalities as [number, number];
  const size = rows * cols;
  if (answer.center?.length !== size) fail(where, `center must have ${size} cells`, answer.center?.length);
  checkCovariance(where, answer.covariance, size);
  userCount(where, n);
  const alpha = significanceLevel(where, options.alpha);
  const replicates = options.replicates ?? 1000;
  if (!(Number.isInteger(replicates) && replicates >= 19))
    fail(where, "replicates must be an integer >= 19", replicates);
  const rng = options.rng ?? seededRng(0);
  const kind = options.statistic ?? "wald";
  if (kind !== "wald" && kind !== "pearson") fail(where, 'statistic must be "wald" or "pearson"', kind);
  // Pearson's test on cells as they are; none when their total is not positive.
  const plainTest = (cells: Float64Array) => {
    let total = 0;
    for (const x of cells) total += x;
    return total > 0
      ? chiSquareIndependence(createTable(answer.attributes, answer.cardinalities, { cells }), n)
      : null;
  };
  const statisticOf =
    kind === "pearson"
      ? (cells: Float64Array) => plainTest(cells)?.statistic ?? 0
      : waldStatistic(answer.center, answer.covariance, rows, cols);
  const observed = statisticOf(Float64Array.from(answer.center));
  const plugIn = plainTest(Float64Array.from(answer.center))?.pValue ?? 1;
  // The null: product of the clipped, normalised margins.
  const rowMass = new Float64Array(rows);
  const colMass = new Float64Array(cols);
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++) {
      rowMass[i] += answer.center[i * cols + j]!;
      colMass[j] += answer.center[i * cols + j]!;
    }
  const normalise = (m: Float64Array) => {
    let s = 0;
    for (let i = 0; i < m.length; i++) {
      m[i] = Math.max(0, m[i]!);
      s += m[i]!;
    }
    for (let i = 0; i < m.length; i++) m[i] = s > 0 ? m[i]! / s : 1 / m.length;
  };
  normalise(rowMass);
  normalise(colMass);
  const factor = psdFactor(answer.covariance, size);
  const draws = new Float64Array(replicates);
  const z = new Float64Array(size);
  const table = new Float64Array(size);
  let above = 0;
  for (let b = 0; b < replicates; b++) {
    for (let i = 0; i < size; i++) z[i] = standardNormal(rng);
    for (let i = 0; i < size; i++) {
      let x = rowMass[Math.floor(i / cols)]! * colMass[i % cols]!;
      for (let j = 0; j <= i; j++) x += factor[i * size + j]! * z[j]!;
      table[i] = x;
    }
    draws[b] = statisticOf(table);
    if (draws[b]! >= observed) above++;
  }
  draws.sort();
  const pValue = (1 + above) / (replicates + 1);
  return {
    statistic: observed,
    pValue,
    reject: pValue <= alpha,
    replicates,
    critical: draws[Math.min(replicates - 1, Math.ceil((1 - alpha) * replicates) - 1)]!,
    plugInPValue: plugIn,
  };
}

/**
 * The Wald statistic Q(t) = D(t)^T S_D^-1 D(t), D_ij(t) = t_ij / T - R_i C_j / T^2
 * (T, R, C: total, row and column sums of t) for i < r - 1, j < c - 1, with S_D =
 * J S J^T fixed at the observed estimate (J by central differences). Under
 * independence D = 0, so Q is nearly chi-square((r-1)(c-1)) whatever the noise.
 * O(cells m + m^3) to build, O(cells m + m^2) per evaluation, m = (r-1)(c-1).
 */
function waldStatistic(
  center: Float64Array,
  covariance: Float64Array,
  rows: number,
  cols: number,
): (cells: Float64Array) => number {
  const size = rows * cols;
  const m = (rows - 1) * (cols - 1);
  const R = new Float64Array(rows);
  const C = new Float64Array(cols);
  const deviations = (t: Float64Array, out: Float64Array): void => {
    let total = 0;
    R.fill(0);
    C.fill(0);
    for (let i = 0; i < rows; i++)
      for (let j = 0; j < cols; j++) {
        const x = t[i * cols + j]!;
        total += x;
        R[i] += x;
        C[j] += x;
      }
    let k = 0;
    for (let i = 0; i < rows - 1; i++)
      for (let j = 0; j < cols - 1; j++)
        out[k++] = t[i * cols + j]! / total - (R[i]! * C[j]!) / (total * total);
  };
  const J = new Float64Array(m * size);
  const plus = new Float64Array(m);
  const minus = new Float64Array(m);
  const probe = Float64Array.from(center);
  const h = 1e-6;
  for (let u = 0; u < size; u++) {
    probe[u] = center[u]! + h;
    deviations(probe, plus);
    probe[u] = center[u]! - h;
    deviations(probe, minus);
    probe[u] = center[u]!;
    for (let k = 0; k < m; k++) J[k * size + u] = (plus[k]! - minus[k]!) / (2 * h);
  }
  const SD = new Float64Array(m * m);
  for (let a = 0; a < m; a++)
    for (let b = 0; b < m; b++) {
      let x = 0;
      for (let u = 0; u < size; u++) {
        const ja = J[a * size + u]!;
        if (ja === 0) continue;
        for (let w = 0; w < size; w++) x += ja * covariance[u * size + w]! * J[b * size + w]!;
      }
      SD[a * m + b] = x;
    }
  const L = psdFactor(SD, m);
  const d = new Float64Array(m);
  const y = new Float64Array(m);
  return (cells: Float64Array): number => {
    deviations(cells, d);
    // Solve L y = d; Q = |y|^2 (null directions of S_D skipped).
    let q = 0;
    for (let i = 0; i < m; i++) {
      const pivot = L[i * m + i]!;
      if (pivot === 0) {
        y[i] = 0;
        continue;
      }
      let x = d[i]!;
      for (let k = 0; k < i; k++) x -= L[i * m + k]! * y[k]!;
      y[i] = x / pivot;
      q += y[i]! * y[i]!;
    }
    return Number.isFinite(q) ? q : 0;
  };
}

/**
 * @internal Lower-triangular L with L L^T = S for a symmetric positive semi-definite S
 * (Cholesky; a pivot below 1e-14 of the largest diagonal is a null direction and
 * its column is left 0, e.g. a table whose total is fixed). O(size^3).
 */
export function psdFactor(S: Float64Array, size: number): Float64Array {
  const L = new Float64Array(size * size);
  let largest = 0;
  for (let i = 0; i < size; i++) largest = Math.max(largest, S[i * size + i]!);
  const floor = 1e-14 * largest;
  for (let j = 0; j < size; j++) {
    let pivot = S[j * size + j]!;
    for (let k = 0; k < j; k++) pivot -= L[j * size + k]! ** 2;
    if (!(pivot > floor)) continue;
    const root = Math.sqrt(pivot);
    L[j * size + j] = root;
    for (let i = j + 1; i < size; i++) {
      let x = S[i * size + j]!;
      for (let k = 0; k < j; k++) x -= L[i * size + k]! * L[j * size + k]!;
      L[i * size + j] = x / root;
    }
  }
  return L;
}

/** A standard normal draw (Box-Muller on two uniforms of `rng`). */
function standardNormal(rng: Rng): number {
  let u = 0;
  while (u === 0) u = rng.nextFloat();
  const v = rng.nextFloat();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
