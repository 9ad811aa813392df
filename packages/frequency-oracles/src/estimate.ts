import { fail } from "./errors.js";

/**
 * Unbiased frequency estimate of a support oracle (../../../docs/algorithms.md#frequency-oracles):
 * `f(x) = (C(x)/N - q) / (p - q)` for every x, where `C(x)` counts the reports
 * supporting x, N is the number of reports, p = Pr[support x | value x] and
 * q = Pr[support x | other value]. Fractions (not counts); may be negative. O(D).
 */
export function supportEstimate(
  counts: ArrayLike<number>,
  reports: number,
  p: number,
  q: number,
  out: Float64Array = new Float64Array(counts.length),
): Float64Array {
  if (!(reports > 0) || !Number.isFinite(reports))
    fail("estimate", "reports must be a finite number > 0", reports);
  if (out.length !== counts.length) fail("estimate", `out must have ${counts.length} cells`, out.length);
  const scale = 1 / (reports * (p - q));
  const offset = q / (p - q);
  for (let x = 0; x < counts.length; x++) out[x] = counts[x]! * scale - offset;
  return out;
}

/**
 * Variance of one cell's estimate from n reports of a support oracle
 * (../../../docs/algorithms.md#frequency-oracles). Without f, the f-free table value `q(1-q) / (n (p-q)^2)`;
 * with the cell's true fraction f, the exact variance for n users of whom n f hold
 * x: `C(x)` is then a sum of independent Bernoullis, `Binomial(n f, p) +
 * Binomial(n (1-f), q)`, so Var = `(f p(1-p) + (1-f) q(1-q)) / (n (p-q)^2)`.
 * Units: squared fractions. O(1).
 */
export function supportVariance(n: number, p: number, q: number, f?: number): number {
  if (!(n > 0) || !Number.isFinite(n)) fail("variance", "n must be a finite number > 0", n);
  const gap = (p - q) * (p - q);
  if (f === undefined) return (q * (1 - q)) / (n * gap);
  if (!(f >= 0 && f <= 1)) fail("variance", "f must be a fraction in [0, 1]", f);
  return (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (n * gap);
}
