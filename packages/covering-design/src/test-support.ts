import { kSubsets } from "@calm-ldp/random";

/**
 * Brute-force helpers for the tests (not exported from the package).
 * @internal
 */

/** For every t-subset, the number of blocks containing it, by direct inclusion tests. O(C(v, t) b k). */
export function coverageCounts(blocks: readonly (readonly number[])[], v: number, t: number): number[] {
  const sets = blocks.map((block) => new Set(block));
  return kSubsets(v, t).map((subset) => sets.filter((set) => subset.every((p) => set.has(p))).length);
}

/** Whether `blocks` is a Steiner system S(t, k, v): every block has k distinct points of 0..v-1, every t-subset in exactly one block. */
export function isSteinerSystem(
  blocks: readonly (readonly number[])[],
  v: number,
  k: number,
  t: number,
): boolean {
  const wellFormed = blocks.every(
    (block) =>
      block.length === k &&
      new Set(block).size === k &&
      block.every((p) => Number.isInteger(p) && p >= 0 && p < v),
  );
  return wellFormed && coverageCounts(blocks, v, t).every((count) => count === 1);
}

/** Binomial coefficient (exact below 2^53). */
export { binomialCoefficient as choose } from "@calm-ldp/random";
