import { discreteSampler, type Rng } from "@calm-ldp/random";
import { fail } from "./errors.js";

/**
 * Zipf weights over D values: `w_x = (x + 1)^-exponent / sum_y (y + 1)^-exponent`
 * (value 0 most frequent), fractions summing to 1. The oracle benchmark workload
 * uses exponent 1.1. O(D).
 */
export function zipfWeights(domain: number, exponent = 1.1): Float64Array {
  if (!Number.isInteger(domain) || domain < 1) fail("zipfWeights", "domain must be an integer >= 1", domain);
  if (!(exponent >= 0) || !Number.isFinite(exponent))
    fail("zipfWeights", "exponent must be a finite number >= 0", exponent);
  const weights = new Float64Array(domain);
  let total = 0;
  for (let x = 0; x < domain; x++) {
    weights[x] = (x + 1) ** -exponent;
    total += weights[x]!;
  }
  for (let x = 0; x < domain; x++) weights[x]! /= total;
  return weights;
}

/**
 * n i.i.d. values from Zipf(exponent) over [0, D) (alias method; data generation
 * for benchmarks and tests, not a privacy-critical draw). O(D + n).
 */
export function zipfValues(rng: Rng, n: number, domain: number, exponent = 1.1): Uint32Array {
  if (!Number.isInteger(n) || n < 0) fail("zipfValues", "n must be an integer >= 0", n);
  const draw = discreteSampler(zipfWeights(domain, exponent));
  const values = new Uint32Array(n);
  for (let i = 0; i < n; i++) values[i] = draw(rng);
  return values;
}

/** Counts of each value in [0, D): the true histogram of `values`. O(n + D). */
export function valueCounts(values: ArrayLike<number>, domain: number): Float64Array {
  const counts = new Float64Array(domain);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v >>> 0 !== v || v >= domain)
      fail("valueCounts", `values[${i}] must be an integer in [0, ${domain})`, v);
    counts[v]! += 1;
  }
  return counts;
}
