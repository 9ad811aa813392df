import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { randomBayesNetwork } from "./bayes-network.js";
import { generateBayesNet } from "./generate-bayes-net.js";

/** Checks every conditional frequency P(x_i = x | parents = u) against the noisy-copy formula (z <= 5). */
function checkConditionals(
  seed: number,
  options: { d: number; cardinality: number; maxParents: number; strength: number },
) {
  const n = 200_000;
  const { store, network } = generateBayesNet({ n, ...options }, seededRng(seed));
  const s = network.strength;
  network.nodes.forEach((node, i) => {
    const k = node.parents.length;
    const c = network.cardinalities[i]!;
    const parentCards = node.parents.map((p) => network.cardinalities[p]!);
    const configs = parentCards.reduce((a, b) => a * b, 1);
    const counts = new Float64Array(configs * c);
    const totals = new Float64Array(configs);
    for (let r = 0; r < n; r++) {
      let u = 0;
      node.parents.forEach((p, j) => {
        u = u * parentCards[j]! + store.columns[p]![r]!;
      });
      counts[u * c + store.columns[i]![r]!]++;
      totals[u]++;
    }
    for (let u = 0; u < configs; u++) {
      const values: number[] = [];
      let rest = u;
      for (let j = k - 1; j >= 0; j--) {
        values[j] = rest % parentCards[j]!;
        rest = Math.floor(rest / parentCards[j]!);
      }
      for (let x = 0; x < c; x++) {
        let p = (k === 0 ? 1 : 1 - s) * node.base[x]!;
        for (let j = 0; j < k; j++) if (node.maps[j]![values[j]!] === x) p += s / k;
        const m = totals[u]!;
        if (m < 100) continue;
        const sd = Math.sqrt(m * p * (1 - p)) || 1e-9;
        // z <= 5 per cell: seeded, a few hundred cells, so a false alarm has probability < 1e-4.
        expect(Math.abs(counts[u * c + x]! - m * p) / sd, `node ${i} u=${u} x=${x}`).toBeLessThan(5);
      }
    }
  });
}

describe("randomBayesNetwork", () => {
  it("gives node i exactly min(i, maxParents) distinct parents among 0..i-1", () => {
    const network = randomBayesNetwork({ d: 12, maxParents: 3 }, seededRng(1));
    network.nodes.forEach((node, i) => {
      expect(node.parents.length).toBe(Math.min(i, 3));
      expect(new Set(node.parents).size).toBe(node.parents.length);
      for (const p of node.parents) expect(p).toBeLessThan(i);
      expect(node.base.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    });
    expect(
      randomBayesNetwork({ d: 5, maxParents: 0 }, seededRng(1)).nodes.every(
        (node) => node.parents.length === 0,
      ),
    ).toBe(true);
  });

  it("maps parent values by a bijection, an injection or a balanced surjection", () => {
    const network = randomBayesNetwork(
      { d: 40, cardinality: [4, ...Array.from({ length: 39 }, (_, i) => [2, 4, 6][i % 3]!)], maxParents: 2 },
      seededRng(2),
    );
    network.nodes.forEach((node, i) => {
      const c = network.cardinalities[i]!;
      node.parents.forEach((p, j) => {
        const map = node.maps[j]!;
        const cp = network.cardinalities[p]!;
        expect(map.length).toBe(cp);
        const hits = new Array(c).fill(0);
        for (const x of map) hits[x]++;
        if (cp <= c) expect(Math.max(...hits)).toBe(1);
        else expect(Math.max(...hits) - Math.min(...hits)).toBeLessThanOrEqual(1);
      });
    });
  });

  it("rejects bad parameters", () => {
    expect(() => randomBayesNetwork({ d: 3, strength: 2 }, seededRng(1))).toThrow(
      "randomBayesNetwork: strength must be in [0, 1] (got 2)",
    );
    expect(() => randomBayesNetwork({ d: 3, maxParents: -1 }, seededRng(1))).toThrow(
      /maxParents must be an integer >= 0/,
    );
    expect(() => randomBayesNetwork({ d: 3, cardinality: 1 }, seededRng(1))).toThrow(
      /cardinality must be an integer in \[2, 65536\]/,
    );
  });
});

describe("generateBayesNet", () => {
  it("follows the noisy-copy conditionals, tree with 3 categories, s = 0.6", () => {
    checkConditionals(3, { d: 5, cardinality: 3, maxParents: 1, strength: 0.6 });
  });

  it("follows the noisy-copy conditionals, two parents, binary, s = 0.3", () => {
    checkConditionals(4, { d: 5, cardinality: 2, maxParents: 2, strength: 0.3 });
  });

  it("s = 0 gives independent attributes: conditionals equal the base marginals", () => {
    checkConditionals(5, { d: 4, cardinality: 2, maxParents: 2, strength: 0 });
  });

  it("s = 1 on a tree makes every attribute its parent's value through the map, row by row", () => {
    const { store, network } = generateBayesNet(
      { n: 5000, d: 8, cardinality: 3, maxParents: 1, strength: 1 },
      seededRng(6),
    );
    network.nodes.forEach((node, i) => {
      if (i === 0) return;
      const parent = store.columns[node.parents[0]!]!;
      const column = store.columns[i]!;
      for (let r = 0; r < 5000; r++) expect(column[r]).toBe(node.maps[0]![parent[r]!]);
    });
  });

  it("draws the network from networkRng and the records from rng", () => {
    const a = generateBayesNet({ n: 2000, d: 6 }, seededRng(1), seededRng(7));
    const b = generateBayesNet({ n: 2000, d: 6 }, seededRng(2), seededRng(7));
    expect(a.network).toEqual(b.network);
    expect(a.store.columns).not.toEqual(b.store.columns);
    expect(generateBayesNet({ n: 2000, d: 6 }, seededRng(1), seededRng(7)).store.columns).toEqual(
      a.store.columns,
    );
  });
});
