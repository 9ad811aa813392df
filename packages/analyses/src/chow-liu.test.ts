import { generateBayesNet } from "@calm-ldp/datasets";
import { allQueries, contingencyTable, createTable } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { chowLiuTree, treeWeight } from "./chow-liu.js";
import { mutualInformation } from "./mutual-information.js";

describe("mutualInformation", () => {
  it("is 0 for independence and ln 2 for a copied fair bit", () => {
    const independent = createTable([0, 1], [2, 3]);
    independent.cells.set([0.1, 0.2, 0.1, 0.15, 0.3, 0.15]);
    expect(mutualInformation(independent)).toBeCloseTo(0, 14);
    const copy = createTable([0, 1], [2, 2]);
    copy.cells.set([0.5, 0, 0, 0.5]);
    expect(mutualInformation(copy)).toBeCloseTo(Math.LN2, 14);
    expect(mutualInformation(copy, { base: 2 })).toBeCloseTo(1, 14);
  });

  it("clips negative cells and normalises (private estimates)", () => {
    const noisy = createTable([0, 1], [2, 2]);
    noisy.cells.set([0.55, -0.05, 0, 0.5]);
    const [a, b] = [0.55 / 1.05, 0.5 / 1.05]; // the clipped table copies one bit: I = H(a, b)
    expect(mutualInformation(noisy)).toBeCloseTo(-(a * Math.log(a) + b * Math.log(b)), 12);
    const counts = createTable([0, 1], [2, 2], { unit: "count" });
    counts.cells.set([30, 10, 20, 40]);
    const fractions = createTable([0, 1], [2, 2]);
    fractions.cells.set([0.3, 0.1, 0.2, 0.4]);
    expect(mutualInformation(counts)).toBeCloseTo(mutualInformation(fractions), 14);
    expect(() => mutualInformation(fractions, { base: 10 as never })).toThrow(/base/);
    expect(() => mutualInformation(createTable([0, 1], [2, 2]))).toThrow(/positive finite mass/);
  });
});

/** Every spanning tree of K_d by brute force over edge subsets (d <= 6): the maximum weight. */
function bruteForceMaximum(d: number, w: (i: number, j: number) => number): number {
  const edges: [number, number][] = [];
  for (let i = 0; i < d; i++) for (let j = i + 1; j < d; j++) edges.push([i, j]);
  let best = Number.NEGATIVE_INFINITY;
  const choose = (start: number, chosen: [number, number][]) => {
    if (chosen.length === d - 1) {
      const parent = Array.from({ length: d }, (_, i) => i);
      const find = (x: number): number => (parent[x] === x ? x : (parent[x] = find(parent[x]!)));
      for (const [i, j] of chosen) {
        const [a, b] = [find(i), find(j)];
        if (a === b) return;
        parent[a] = b;
      }
      best = Math.max(
        best,
        chosen.reduce((s, [i, j]) => s + w(i, j), 0),
      );
      return;
    }
    for (let e = start; e < edges.length; e++) choose(e + 1, [...chosen, edges[e]!]);
  };
  choose(0, []);
  return best;
}

describe("chowLiuTree", () => {
  it("finds the maximum spanning tree (against brute force)", () => {
    const rng = seededRng(42);
    for (let trial = 0; trial < 20; trial++) {
      const d = 2 + (trial % 5);
      const weights = new Map<string, number>();
      for (let i = 0; i < d; i++) for (let j = i + 1; j < d; j++) weights.set(`${i},${j}`, rng.nextFloat());
      const w = (i: number, j: number) => weights.get(`${i},${j}`)!;
      const tree = chowLiuTree(d, w);
      expect(tree.edges).toHaveLength(d - 1);
      expect(tree.weight).toBeCloseTo(bruteForceMaximum(d, w), 12);
      expect(treeWeight(tree, w)).toBeCloseTo(tree.weight, 12);
      for (const [i, j] of tree.edges) expect(i).toBeLessThan(j);
    }
    expect(chowLiuTree(1, () => 0)).toEqual({ edges: [], weight: 0 });
    expect(() => chowLiuTree(3, () => Number.NaN)).toThrow(/must be finite/);
  });

  it("recovers the tree of a tree-shaped Bayesian network from its data", () => {
    // One parent per node: the network is a tree; with strong copying its edges carry the most information.
    const d = 7;
    const data = generateBayesNet({ n: 50_000, d, maxParents: 1, strength: 0.8 }, seededRng(3), seededRng(5));
    const mi = new Map<string, number>();
    for (const [i, j] of allQueries(d, 2) as [number, number][])
      mi.set(`${i},${j}`, mutualInformation(contingencyTable(data.store, [i, j])));
    const tree = chowLiuTree(d, (i, j) => mi.get(`${i},${j}`)!);
    const expected = data.network.nodes
      .map((node, i) => [node.parents[0], i] as const)
      .filter(([p]) => p !== undefined)
      .map(([p, i]) => `${p},${i}`)
      .sort();
    expect(expected).toHaveLength(d - 1);
    expect(tree.edges.map(([i, j]) => `${i},${j}`).sort()).toEqual(expected);
  });
});
