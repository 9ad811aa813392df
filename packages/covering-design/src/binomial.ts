/**
 * The binomial coefficient C(n, j) as a double: exact while it is below 2^53
 * (computed with BigInt), `Infinity` above. 0 when j < 0 or j > n. O(j).
 * @internal
 */
export function binomial(n: number, j: number): number {
  if (j < 0 || j > n) return 0;
  const m = Math.min(j, n - j);
  let value = 1n;
  for (let i = 1; i <= m; i++) value = (value * BigInt(n - m + i)) / BigInt(i);
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.POSITIVE_INFINITY : Number(value);
}

/**
 * `table[n * (jMax + 1) + j] = C(n, j)` for `0 <= n <= nMax`, `0 <= j <= jMax`, as
 * an Int32Array (the caller guarantees every entry it reads fits in 31 bits; the
 * others may wrap and must not be used). Used for colex ranks. O(nMax jMax).
 * @internal
 */
export function binomialTable(nMax: number, jMax: number): Int32Array {
  const width = jMax + 1;
  const table = new Int32Array((nMax + 1) * width);
  for (let n = 0; n <= nMax; n++) {
    table[n * width] = 1;
    for (let j = 1; j <= Math.min(n, jMax); j++) {
      table[n * width + j] = (table[(n - 1) * width + j - 1]! + table[(n - 1) * width + j]!) | 0;
    }
  }
  return table;
}
