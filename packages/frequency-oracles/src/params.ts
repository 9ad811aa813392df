import { fail } from "./errors.js";

/** Largest eps accepted: e^20 ~ 4.9e8 keeps every oracle's integer ranges inside 32 bits. */
export const MAX_EPS = 20;
/** Largest domain accepted (values must fit a uint32 word with room for HR's 2^ceil(log2(D+1))). */
export const MAX_DOMAIN = 2 ** 30;

/** @internal Validate eps: finite, in (0, MAX_EPS]. */
export function checkEps(where: string, eps: unknown): number {
  if (typeof eps !== "number" || !(eps > 0 && eps <= MAX_EPS)) {
    fail(where, `eps must be a finite number in (0, ${MAX_EPS}]`, eps);
  }
  return eps;
}

/** @internal Validate a domain size: an integer in [min, max]. */
export function checkDomain(where: string, domain: unknown, min = 2, max = MAX_DOMAIN): number {
  if (typeof domain !== "number" || !Number.isInteger(domain) || domain < min || domain > max) {
    fail(where, `domain must be an integer in [${min}, ${max}]`, domain);
  }
  return domain;
}

/**
 * Validate an oracle factory's options object `{ eps, domain }` and name the
 * factory in every error (`where`: "createMyOracle: eps must be a finite number in
 * (0, 20] (got NaN)"): eps finite in (0, MAX_EPS], domain an integer in
 * [2, maxDomain]. Returns both. Call it first in a factory. O(1).
 */
export function checkOracleOptions(
  where: string,
  options: { readonly eps?: unknown; readonly domain?: unknown } | null | undefined,
  maxDomain = MAX_DOMAIN,
): { eps: number; domain: number } {
  if (options == null || typeof options !== "object")
    fail(where, "options must be an object { eps, domain }", options);
  return { eps: checkEps(where, options.eps), domain: checkDomain(where, options.domain, 2, maxDomain) };
}

/** @internal Validate an integer option in [min, max]. */
export function checkInteger(where: string, name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    fail(where, `${name} must be an integer in [${min}, ${max}]`, value);
  }
  return value;
}

/**
 * @internal Every value must be an integer in [0, domain). One pass, O(n);
 * `v >>> 0 === v` rejects NaN, negatives, fractions and values >= 2^32 at once.
 */
export function checkValues(where: string, values: ArrayLike<number>, domain: number): void {
  if (values == null || typeof values.length !== "number")
    fail(where, "values must be an array-like of integers", values);
  for (let i = 0, n = values.length; i < n; i++) {
    const v = values[i]!;
    if (v >>> 0 !== v || v >= domain) fail(where, `values[${i}] must be an integer in [0, ${domain})`, v);
  }
}

/** @internal Validate one input value. */
export function checkValue(where: string, value: unknown, domain: number): number {
  if (typeof value !== "number" || value >>> 0 !== value || value >= domain) {
    fail(where, `value must be an integer in [0, ${domain})`, value);
  }
  return value;
}

/** @internal Validate true counts for a count-level simulation; returns N = sum. */
export function checkTrueCounts(where: string, counts: ArrayLike<number>, domain: number): number {
  if (counts == null || counts.length !== domain) {
    fail(where, `trueCounts must have length D = ${domain}`, counts == null ? counts : counts.length);
  }
  let total = 0;
  for (let x = 0; x < domain; x++) {
    const c = counts[x]!;
    if (!Number.isInteger(c) || c < 0 || c > 2 ** 31)
      fail(where, `trueCounts[${x}] must be an integer in [0, 2^31]`, c);
    total += c;
  }
  if (total > 2 ** 31) fail(where, "the total of trueCounts must be <= 2^31", total);
  return total;
}
