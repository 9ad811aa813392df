import { nextKSubset } from "@calm-ldp/random";
import { binomial } from "../binomial.js";

/**
 * Blocks of a design on v' >= v points restricted to the points 0..v-1: every
 * t-subset of 0..v-1 that was covered stays covered by the block's remaining
 * points. Blocks left with fewer than t points cover nothing and are dropped; the
 * others are returned as sorted partial blocks (to be padded to k points by the
 * caller). O(total points).
 * @internal
 */
export function restrictBlocks(blocks: readonly (readonly number[])[], v: number, t: number): number[][] {
  const out: number[][] = [];
  for (const block of blocks) {
    const kept = block.filter((p) => p < v);
    if (kept.length >= t) out.push(kept);
  }
  return out;
}

/**
 * The "add a point" recursion C(v, k, t) <= C(v-1, k, t) + C(v-1, k-1, t-1): a
 * covering of the t-subsets of 0..v-2 by k-sets, plus {B ∪ {v-1}} for a covering B
 * of the (t-1)-subsets of 0..v-2 by (k-1)-sets. O(total points).
 * @internal
 */
export function addPoint(
  base: readonly (readonly number[])[],
  apex: readonly (readonly number[])[],
  v: number,
): number[][] {
  return [...base.map((block) => block.slice()), ...apex.map((block) => [...block, v - 1])];
}

/**
 * C(v, k, t) <= C(v-1, k-1, t): the blocks of a covering of the t-subsets of 0..v-2
 * by (k-1)-sets, each with the point v-1 added. A t-subset containing v-1 is covered
 * because its other t-1 points lie in some t-subset, hence in some block. O(total points).
 * @internal
 */
export function extendBlocks(blocks: readonly (readonly number[])[], v: number): number[][] {
  return blocks.map((block) => [...block, v - 1]);
}

/**
 * Size of the group construction: split the v points into g = ceil(v / s) groups of
 * at most s = floor(k / t) points; the unions of t groups (padded to k points) cover
 * every t-subset. C(g, t) blocks, computed without building them. O(t).
 * @internal
 */
export function groupConstructionSize(v: number, k: number, t: number): number {
  const groups = Math.ceil(v / Math.floor(k / t));
  return binomial(groups, Math.min(t, groups));
}

/**
 * Whether the padded unions of the group construction are all distinct, so that it
 * has exactly {@link groupConstructionSize} blocks: the k - t s padding points are
 * fewer than the smallest group (then no padded union contains a group it was not
 * built from). O(1).
 * @internal
 */
export function groupConstructionDistinct(v: number, k: number, t: number): boolean {
  const s = Math.floor(k / t);
  const groups = Math.ceil(v / s);
  if (groups <= t) return true; // one block
  const smallest = Math.min(s, v - (groups - 1) * s);
  return k - t * s < smallest;
}

/**
 * The blocks of the group construction (see {@link groupConstructionSize}), each
 * padded to k points with the smallest points outside it. O(C(g, t) k).
 * @internal
 */
export function groupConstruction(v: number, k: number, t: number): number[][] {
  const s = Math.floor(k / t);
  const groups = Math.ceil(v / s);
  const r = Math.min(t, groups);
  const blocks: number[][] = [];
  const chosen = Array.from({ length: r }, (_, i) => i);
  for (;;) {
    const inBlock = new Uint8Array(v);
    for (const g of chosen) for (let p = g * s; p < Math.min(v, (g + 1) * s); p++) inBlock[p] = 1;
    for (let p = 0, count = inBlock.reduce((a, b) => a + b, 0); p < v && count < k; p++) {
      if (!inBlock[p]) {
        inBlock[p] = 1;
        count++;
      }
    }
    const block: number[] = [];
    for (let p = 0; p < v; p++) if (inBlock[p]) block.push(p);
    blocks.push(block);
    if (!nextKSubset(chosen, groups)) return blocks;
  }
}
