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

/**
 * Advances `subset` (k ascending members of [0, n)) to the next k-subset of
 * [0, n) in lexicographic order, in place, and returns true; after the last one,
 * {n - k, ..., n - 1}, returns false and leaves it unchanged. Starting from
 * {0, ..., k - 1}, repeated calls visit all C(n, k) subsets. Amortised O(1),
 * at most O(k) per call.
 */
export function nextKSubset(subset: number[] | Int32Array, n: number): boolean {
  const k = subset.length;
  let i = k - 1;
  while (i >= 0 && subset[i] === n - k + i) i--;
  if (i < 0) return false;
  subset[i]!++;
  for (let j = i + 1; j < k; j++) subset[j] = subset[j - 1]! + 1;
  return true;
}

/**
 * Every k-subset of [0, n) (ascending members) in lexicographic order, each a
 * fresh array; none when k > n, one empty subset when k = 0. O(C(n, k) k).
 */
export function kSubsets(n: number, k: number): number[][] {
  const out: number[][] = [];
  if (k > n) return out;
  const subset = Array.from({ length: k }, (_, i) => i);
  do out.push(subset.slice());
  while (nextKSubset(subset, n));
  return out;
}

/**
 * Pascal's triangle as a flat table: `table[n * (kMax + 1) + j] = C(n, j)` for
 * `0 <= n <= nMax`, `0 <= j <= kMax` (0 where j > n), as doubles: exact while
 * C(n, j) < 2^53 (callers check the largest entry they read). O(nMax kMax).
 */
export function binomialTable(nMax: number, kMax: number): Float64Array {
  const width = kMax + 1;
  const table = new Float64Array((nMax + 1) * width);
  for (let n = 0; n <= nMax; n++) {
    table[n * width] = 1;
    for (let j = 1; j <= Math.min(n, kMax); j++) {
      table[n * width + j] = table[(n - 1) * width + j - 1]! + table[(n - 1) * width + j]!;
    }
  }
  return table;
}
