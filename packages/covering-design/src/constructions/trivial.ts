import { kSubsets } from "@calm-ldp/random";

/**
 * Designs whose optimality is elementary:
 * - `allSubsets(v, t)`: every t-subset, the only covering when k = t: C(v, t, t) = C(v, t);
 * - `partitionBlocks(v, k)`: t = 1, ceil(v/k) blocks (the last one padded), optimal;
 * - `complementBlocks(v, t)`: k = v - 1, the complements of t + 1 points, optimal
 *   (a t-subset misses one of t + 1 points; t blocks leave the t-set of their
 *   missing points uncovered).
 * @internal
 */
export function allSubsets(v: number, t: number): number[][] {
  return kSubsets(v, t);
}

/** @internal see {@link allSubsets} */
export function partitionBlocks(v: number, k: number): number[][] {
  const blocks: number[][] = [];
  for (let start = 0; start < v; start += k) {
    const first = Math.min(start, v - k);
    blocks.push(Array.from({ length: k }, (_, i) => first + i));
  }
  return blocks;
}

/** @internal see {@link allSubsets} */
export function complementBlocks(v: number, t: number): number[][] {
  const blocks: number[][] = [];
  for (let missing = 0; missing <= t; missing++) {
    blocks.push(Array.from({ length: v }, (_, i) => i).filter((p) => p !== missing));
  }
  return blocks;
}
