/**
 * Test helpers (not exported from the package): a tiny deterministic source of
 * doubles (mulberry32) so the tests do not depend on another package, and the
 * explicit Hadamard matrix for brute-force comparisons.
 * @internal
 */
export function testValues(seed: number, length: number): Float64Array {
  let state = seed >>> 0;
  const out = new Float64Array(length);
  for (let i = 0; i < length; i++) {
    state = (state + 0x6d2b79f5) | 0;
    let z = Math.imul(state ^ (state >>> 15), 1 | state);
    z = (z + Math.imul(z ^ (z >>> 7), 61 | z)) ^ z;
    out[i] = ((z ^ (z >>> 14)) >>> 0) / 2 ** 32 - 0.5;
  }
  return out;
}

/** A probability distribution over 2^d cells (positive, sums to 1). */
export function testDistribution(seed: number, d: number): Float64Array {
  const values = testValues(seed, 2 ** d).map((x) => x + 0.5 + 1e-3);
  const total = values.reduce((s, x) => s + x, 0);
  return values.map((x) => x / total);
}

export function popcount(x: number): number {
  let count = 0;
  for (let y = x >>> 0; y !== 0; y &= y - 1) count++;
  return count;
}

/** `y = H x` with the explicit 2^d x 2^d matrix `H[a][j] = (-1)^{popcount(a & j)}`: O(4^d). */
export function bruteForceHadamard(x: ArrayLike<number>): Float64Array {
  const size = x.length;
  const y = new Float64Array(size);
  for (let a = 0; a < size; a++) {
    let sum = 0;
    for (let j = 0; j < size; j++) sum += (popcount(a & j) & 1 ? -1 : 1) * x[j]!;
    y[a] = sum;
  }
  return y;
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Number.POSITIVE_INFINITY;
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
  return worst;
}
