/**
 * Pascal's triangle `table[n * (kMax + 1) + j] = C(n, j)` for `0 <= n <= nMax`,
 * `0 <= j <= kMax`, as doubles (exact while below 2^53; callers check the
 * largest entry they use). O(nMax * kMax).
 * @internal
 */
export function binomialTable(nMax: number, kMax: number): Float64Array {
  const width = kMax + 1;
  const table = new Float64Array((nMax + 1) * width);
  for (let n = 0; n <= nMax; n++) {
    table[n * width] = 1;
    for (let j = 1; j <= Math.min(n, kMax); j++) {
      table[n * width + j] = table[(n - 1) * width + j - 1]! + (j <= n - 1 ? table[(n - 1) * width + j]! : 0);
    }
  }
  return table;
}
