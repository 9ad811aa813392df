import { invalid } from "./errors.js";

/**
 * Standard normal CDF Phi(x) = 1/2 + phi(x) * sum_{j>=0} x^(2j+1) / (1*3*...*(2j+1)),
 * a series of positive terms (no cancellation), to double precision for |x| <= 8;
 * beyond, 0 or 1 within 1e-15. O(x^2) terms.
 */
export function normalCdf(x: number): number {
  if (x > 8) return 1;
  if (x < -8) return 0;
  let term = x;
  let sum = x;
  const x2 = x * x;
  for (let j = 1; j < 500 && Math.abs(term) > 1e-17 * Math.abs(sum); j++) {
    term *= x2 / (2 * j + 1);
    sum += term;
  }
  return 0.5 + (Math.exp(-x2 / 2) / Math.sqrt(2 * Math.PI)) * sum;
}

/** The standard normal quantile z with Phi(z) = p, by bisection on {@link normalCdf} (to 1e-12). O(40 CDF calls). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) invalid("normalQuantile", "p must be in (0, 1)", p);
  let low = -8.5;
  let high = 8.5;
  for (let i = 0; i < 60 && high - low > 1e-12; i++) {
    const mid = (low + high) / 2;
    if (normalCdf(mid) < p) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

const zByLevel = new Map<number, number>();

/** z of a two-sided interval at `level` (0.95 -> 1.959964), cached per level. Throws for a level outside (0, 1). */
export function twoSidedZ(level: number, where: string): number {
  if (!(typeof level === "number" && level > 0 && level < 1))
    invalid(where, "interval must be a confidence level in (0, 1)", level);
  let z = zByLevel.get(level);
  if (z === undefined) {
    z = normalQuantile(0.5 + level / 2);
    if (zByLevel.size > 64) zByLevel.clear();
    zByLevel.set(level, z);
  }
  return z;
}
