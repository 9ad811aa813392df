/** @internal C(n, j): exact up to 2^53 - 1, `Infinity` above (from @calm-ldp/random). */
export { binomialCoefficient as binomial } from "@calm-ldp/random";

import { binomialTable as pascalTable } from "@calm-ldp/random";

/**
 * `table[n * (jMax + 1) + j] = C(n, j)` for `0 <= n <= nMax`, `0 <= j <= jMax`, as
 * an Int32Array (the caller guarantees every entry it reads fits in 31 bits; the
 * others may wrap and must not be used). Used for colex ranks. O(nMax jMax).
 * @internal
 */
export function binomialTable(nMax: number, jMax: number): Int32Array {
  return Int32Array.from(pascalTable(nMax, jMax));
}
