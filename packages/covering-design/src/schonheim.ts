import { fail } from "./errors.js";

/**
 * The Schönheim lower bound on the covering number C(v, k, t) (Schönheim, 1964):
 * `L(v, k, t) = ceil( v/k * ceil( (v-1)/(k-1) * ... ceil( (v-t+1)/(k-t+1) ) ... ) )`.
 * Every covering design has at least this many blocks; a Steiner system S(t, k, v)
 * meets it with equality. Exact integer arithmetic (BigInt); O(t).
 */
export function schonheimBound(v: number, k: number, t: number): number {
  checkVkt("schonheimBound", v, k, t);
  let bound = 1n;
  for (let i = t - 1; i >= 0; i--) {
    const numerator = BigInt(v - i) * bound;
    const denominator = BigInt(k - i);
    bound = (numerator + denominator - 1n) / denominator;
  }
  if (bound > BigInt(Number.MAX_SAFE_INTEGER)) fail("schonheimBound", "the bound must be below 2^53", bound);
  return Number(bound);
}

/** @internal Shared validation: integers with 1 <= t <= k <= v <= 1024. */
export function checkVkt(where: string, v: number, k: number, t: number, maxV = 1024): void {
  if (!Number.isInteger(v) || v < 1 || v > maxV) fail(where, `v must be an integer in [1, ${maxV}]`, v);
  if (!Number.isInteger(k) || k < 1 || k > v) fail(where, `k must be an integer in [1, v = ${v}]`, k);
  if (!Number.isInteger(t) || t < 1 || t > k) fail(where, `t must be an integer in [1, k = ${k}]`, t);
}
