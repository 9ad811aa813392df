import type { Rng } from "./api.js";
import { fail } from "./errors.js";
import { uniformInt } from "./uniform-int.js";

/**
 * k distinct integers from [0, n), every k-subset equally likely, in ascending
 * order. Floyd's algorithm (Bentley and Floyd, CACM 30(9), 1987): O(k) draws and
 * O(k log k) for the sort, independent of n.
 */
export function sampleWithoutReplacement(rng: Rng, n: number, k: number): Uint32Array {
  if (!Number.isSafeInteger(n) || n < 0 || n > 2 ** 32)
    fail("sampleWithoutReplacement", "n must be an integer in [0, 2^32]", n);
  if (!Number.isInteger(k) || k < 0 || k > n)
    fail("sampleWithoutReplacement", `k must be an integer in [0, n = ${n}]`, k);
  const chosen = new Set<number>();
  for (let j = n - k; j < n; j++) {
    const t = uniformInt(rng, j + 1);
    chosen.add(chosen.has(t) ? j : t);
  }
  return Uint32Array.from(chosen).sort();
}
