import type { ChowLiuTree } from "./api.js";
import { fail } from "./errors.js";

/**
 * The Chow-Liu tree (Chow and Liu 1968; Cormode et al. §6.2): the maximum-weight
 * spanning tree over attributes 0..d-1, where `weight(i, j)` (i < j) is usually
 * the mutual information of the pair. Prim's algorithm from attribute 0 with
 * deterministic ties (the lower-index pair wins), O(d^2) weight calls and time.
 * Weights must be finite; d = 1 gives the empty tree.
 */
export function chowLiuTree(d: number, weight: (i: number, j: number) => number): ChowLiuTree {
  if (!(Number.isInteger(d) && d >= 1)) fail("chowLiuTree", "d must be an integer >= 1", d);
  const w = new Float64Array(d * d);
  for (let i = 0; i < d; i++)
    for (let j = i + 1; j < d; j++) {
      const x = weight(i, j);
      if (!Number.isFinite(x)) fail("chowLiuTree", `weight(${i}, ${j}) must be finite`, x);
      w[i * d + j] = x;
      w[j * d + i] = x;
    }
  const inTree = new Uint8Array(d);
  const best = new Float64Array(d).fill(Number.NEGATIVE_INFINITY);
  const from = new Int32Array(d).fill(-1);
  inTree[0] = 1;
  for (let j = 1; j < d; j++) {
    best[j] = w[j]!;
    from[j] = 0;
  }
  const edges: [number, number][] = [];
  let total = 0;
  for (let step = 1; step < d; step++) {
    let next = -1;
    for (let j = 0; j < d; j++) {
      if (inTree[j]) continue;
      if (next < 0 || best[j]! > best[next]!) next = j;
    }
    const parent = from[next]!;
    edges.push(parent < next ? [parent, next] : [next, parent]);
    total += best[next]!;
    inTree[next] = 1;
    for (let j = 0; j < d; j++) {
      if (inTree[j]) continue;
      const x = w[next * d + j]!;
      if (x > best[j]! || (x === best[j]! && next < from[j]!)) {
        best[j] = x;
        from[j] = next;
      }
    }
  }
  return { edges, weight: total };
}

/** Sum of `weight(i, j)` over a tree's edges (e.g. the true mutual information of a learnt tree). O(d). */
export function treeWeight(
  tree: Pick<ChowLiuTree, "edges">,
  weight: (i: number, j: number) => number,
): number {
  let total = 0;
  for (const [i, j] of tree.edges) total += weight(i, j);
  return total;
}
