import { nextKSubset } from "@calm-ldp/random";

/**
 * All j-subsets of the positions {0..n-1} in lexicographic order, flattened: the
 * i-th subset is `out[i * j .. i * j + j)`. C(n, j) j entries. For j = 0 one empty
 * subset (a zero-length array with `count = 1`).
 * @internal
 */
export function positionSubsets(n: number, j: number): { count: number; positions: Int32Array } {
  if (j > n) return { count: 0, positions: new Int32Array(0) };
  const subsets: number[] = [];
  let count = 0;
  const current = Array.from({ length: j }, (_, i) => i);
  do {
    subsets.push(...current);
    count++;
  } while (nextKSubset(current, n));
  return { count, positions: Int32Array.from(subsets) };
}

/** @internal Number of set bits of a 32-bit integer (from @calm-ldp/random). */
export { popcount32 } from "@calm-ldp/random";
