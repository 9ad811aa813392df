/**
 * Number of set bits of a 32-bit word (its argument is taken as `x >>> 0`): the
 * SWAR sum of bit pairs, nibbles and bytes. O(1).
 */
export function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

const EXACT_LIMIT = Number.MAX_SAFE_INTEGER;

/**
 * The binomial coefficient C(n, k) for integers n >= 0: 0 when k < 0 or k > n.
 *
 * Overflow rule: the result is exact whenever C(n, k) <= 2^53 - 1, and
 * `Infinity` when it is larger (never a rounded or wrapped value). The product
 * form `C(n, i) = C(n, i - 1) (n - m + i) / i` with m = min(k, n - k) runs in
 * doubles while every intermediate product stays below 2^53 (then each step is
 * an exact integer division), and switches to BigInt for the rest; the partial
 * values only grow, so it stops at the first one past 2^53. O(min(k, n - k)).
 */
export function binomialCoefficient(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  const m = Math.min(k, n - k);
  let value = 1;
  let i = 1;
  for (; i <= m; i++) {
    const product = value * (n - m + i);
    if (product > EXACT_LIMIT) break;
    value = product / i;
  }
  if (i > m) return value;
  // C(n - m + i, i) grows with i, so once past 2^53 the result is too.
  let big = BigInt(value);
  for (; i <= m; i++) {
    big = (big * BigInt(n - m + i)) / BigInt(i);
    if (big > BigInt(EXACT_LIMIT)) return Number.POSITIVE_INFINITY;
  }
  return Number(big);
}
