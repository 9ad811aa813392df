import { createTable, type MarginalTable, projectTable, tableTotal } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { InvalidQueryError } from "./errors.js";
import { fitIpf } from "./ipf.js";
import { maxEntropy } from "./max-entropy.js";

/**
 * A log-linear distribution with only pairwise interactions over k attributes:
 * p(x) ∝ exp(sum_{i<j} J_ij[x_i][x_j]). It is the maximum-entropy distribution
 * with its own pairwise marginals, so IPF from those marginals must return it.
 */
function pairwiseModel(cards: readonly number[], seed: number, strength = 1): MarginalTable {
  const rng = seededRng(seed);
  const k = cards.length;
  const couplings = new Map<string, number[]>();
  for (let i = 0; i < k; i++) {
    for (let j = i + 1; j < k; j++) {
      couplings.set(
        `${i},${j}`,
        Array.from({ length: cards[i]! * cards[j]! }, () => strength * (2 * rng.nextFloat() - 1)),
      );
    }
  }
  const table = createTable(
    cards.map((_, i) => i),
    cards,
  );
  const values = new Array<number>(k).fill(0);
  let sum = 0;
  for (let u = 0; u < table.cells.length; u++) {
    let rest = u;
    for (let i = k - 1; i >= 0; i--) {
      values[i] = rest % cards[i]!;
      rest = Math.floor(rest / cards[i]!);
    }
    let energy = 0;
    for (let i = 0; i < k; i++) {
      for (let j = i + 1; j < k; j++)
        energy += couplings.get(`${i},${j}`)![values[i]! * cards[j]! + values[j]!]!;
    }
    table.cells[u] = Math.exp(energy);
    sum += table.cells[u]!;
  }
  for (let u = 0; u < table.cells.length; u++) table.cells[u] /= sum;
  return table;
}

function pairViews(joint: MarginalTable): MarginalTable[] {
  const views: MarginalTable[] = [];
  const k = joint.attributes.length;
  for (let i = 0; i < k; i++) for (let j = i + 1; j < k; j++) views.push(projectTable(joint, [i, j]));
  return views;
}

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
  return worst;
}

describe("maxEntropy (../../../docs/algorithms.md#answering-a-query)", () => {
  it("answers a covered query exactly by projection", () => {
    const joint = pairwiseModel([2, 3, 2, 2], 1);
    const views = [projectTable(joint, [0, 1, 2]), projectTable(joint, [2, 3])];
    const result = maxEntropy(views, [2, 0]);
    expect(result.method).toBe("projection");
    expect(result.table.attributes).toEqual([0, 2]);
    expect(maxDiff(result.table.cells, projectTable(joint, [0, 2]).cells)).toBeLessThan(1e-15);
    expect(result).toMatchObject({ iterations: 0, converged: true, inconsistent: false });
  });

  it("recovers a product distribution from its 1-way marginals", () => {
    const cards = [2, 3, 4, 2];
    const rng = seededRng(5);
    const ones = cards.map((c, i) => {
      const cells = Array.from({ length: c }, () => rng.nextFloat() + 0.1);
      const s = cells.reduce((a, b) => a + b, 0);
      return createTable([i], [c], { cells: cells.map((x) => x / s) });
    });
    const result = maxEntropy(ones, [0, 1, 2, 3]);
    expect(result.method).toBe("ipf");
    expect(result.converged).toBe(true);
    const values = [0, 0, 0, 0];
    for (let u = 0; u < result.table.cells.length; u++) {
      let rest = u;
      let product = 1;
      for (let i = 3; i >= 0; i--) {
        values[i] = rest % cards[i]!;
        rest = Math.floor(rest / cards[i]!);
        product *= ones[i]!.cells[values[i]!]!;
      }
      expect(Math.abs(result.table.cells[u]! - product)).toBeLessThan(1e-12);
    }
  });

  it("returns the pairwise log-linear distribution from its pairwise marginals (binary and ternary)", () => {
    for (const cards of [
      [2, 2, 2],
      [3, 3, 3, 3],
      [2, 3, 4, 2, 3],
    ]) {
      const joint = pairwiseModel(cards, cards.length, 1.5);
      const result = maxEntropy(pairViews(joint), joint.attributes, { tolerance: 1e-12 });
      expect(result.converged).toBe(true);
      expect(result.inconsistent).toBe(false);
      expect(result.constraints.length).toBe((cards.length * (cards.length - 1)) / 2);
      expect(result.maxResidual).toBeLessThan(1e-11);
      expect(maxDiff(result.table.cells, joint.cells)).toBeLessThan(1e-9);
    }
  });

  it("gives the uniform table for three pairwise marginals of the parity distribution", () => {
    // Uniform over {x : x0 xor x1 xor x2 = 0}: every pairwise marginal is uniform
    // (1/4 each), so the maximum-entropy table with those marginals is uniform (1/8),
    // not the parity distribution itself.
    const parity = createTable([0, 1, 2], [2, 2, 2], { cells: [0.25, 0, 0, 0.25, 0, 0.25, 0.25, 0] });
    const result = maxEntropy(pairViews(parity), [0, 1, 2]);
    expect(maxDiff(result.table.cells, new Array(8).fill(0.125))).toBeLessThan(1e-12);
    expect(result.iterations).toBe(1);
  });

  it("uses only the maximal intersections and leaves attributes in no view uniform", () => {
    const joint = pairwiseModel([2, 2, 2, 3], 9);
    const views = [
      projectTable(
        joint,
        [0, 1, 5].filter((a) => a < 4),
      ),
      projectTable(joint, [1]),
      projectTable(joint, [0, 2]),
    ];
    const result = maxEntropy(views, [0, 1, 2, 7], { cardinalities: [2, 2, 2, 3, 5, 5, 5, 4] });
    expect(result.constraints).toEqual([
      [0, 1],
      [0, 2],
    ]);
    expect(result.table.cardinalities).toEqual([2, 2, 2, 4]);
    const onSeven = projectTable(result.table, [7]).cells;
    expect(maxDiff(onSeven, [0.25, 0.25, 0.25, 0.25])).toBeLessThan(1e-12);
    expect(() => maxEntropy(views, [0, 7])).toThrow(/attribute 7 is in no view: give its cardinality/);
  });

  it("on inconsistent constraints stops early, says so, and still returns a distribution", () => {
    // x0 = x1, x1 = x2 and x0 != x2: each pair is a valid table with uniform 1-way
    // marginals, but no joint distribution has all three.
    const equal = [0.5, 0, 0, 0.5];
    const differ = [0, 0.5, 0.5, 0];
    const views = [
      createTable([0, 1], [2, 2], { cells: equal }),
      createTable([1, 2], [2, 2], { cells: equal }),
      createTable([0, 2], [2, 2], { cells: differ }),
    ];
    const result = maxEntropy(views, [0, 1, 2], { maxIterations: 10_000 });
    expect(result.converged).toBe(false);
    expect(result.totalRestored).toBe(true);
    expect(result.stalled).toBe(true);
    expect(result.inconsistent).toBe(true);
    expect(result.iterations).toBeLessThan(10_000);
    expect(result.maxResidual).toBeGreaterThan(0.1);
    expect(result.maxDisagreement).toBeLessThan(1e-15); // pairwise they agree: only jointly impossible
    // IPF zeroes every cell here (each constraint's zeros kill the cells the others
    // left); the fit then falls back to the uniform table with the common total.
    expect(Array.from(result.table.cells)).toEqual(new Array(8).fill(0.125));
  });

  it("on conflicting but not annihilating constraints returns a bounded compromise with the right total", () => {
    // Two views disagree on attribute 1 (0.8 vs 0.4 for value 0): IPF cycles between
    // them, stalls, and the table keeps total 1 and stays between the two answers.
    const a = createTable([0, 1], [2, 2], { cells: [0.4, 0.1, 0.4, 0.1] });
    const b = createTable([1, 2], [2, 2], { cells: [0.2, 0.2, 0.3, 0.3] });
    const result = maxEntropy([a, b], [0, 1, 2], { maxIterations: 10_000 });
    expect(result.inconsistent).toBe(true);
    expect(result.iterations).toBeLessThan(100);
    expect(tableTotal(result.table)).toBeCloseTo(1, 12);
    const one = projectTable(result.table, [1]).cells[0]!;
    expect(one).toBeGreaterThanOrEqual(0.4 - 1e-12);
    expect(one).toBeLessThanOrEqual(0.8 + 1e-12);
    expect(result.maxDisagreement).toBeCloseTo(0.4, 12);
  });

  it("reports disagreeing views and clipped negative targets", () => {
    const a = createTable([0, 1], [2, 2], { cells: [0.3, 0.2, 0.3, 0.2] });
    const b = createTable([1, 2], [2, 2], { cells: [0.5, 0.2, 0.35, -0.05] });
    const result = maxEntropy([a, b], [0, 1, 2]);
    // On attribute 1, a gives (0.6, 0.4) and b gives (0.7, 0.3).
    expect(result.maxDisagreement).toBeCloseTo(0.1, 12);
    expect(result.clippedMass).toBeCloseTo(0.05, 12);
    expect(result.inconsistent).toBe(true);
    for (const x of result.table.cells) expect(x).toBeGreaterThanOrEqual(0);
    expect(tableTotal(result.table)).toBeCloseTo(1, 12);
  });

  it("rejects bad options and views", () => {
    const view = createTable([0], [2], { cells: [0.5, 0.5] });
    expect(() => maxEntropy([view], [0], { tolerance: 0 })).toThrow(
      /maxEntropy: tolerance must be a finite number > 0 \(got 0\)/,
    );
    expect(() => maxEntropy([view], [0], { maxIterations: 0 })).toThrow(InvalidQueryError);
    expect(() => maxEntropy([], [0])).toThrow(/non-empty/);
    expect(() => maxEntropy([view], [0, 0])).toThrow(/distinct/);
    expect(() => maxEntropy([view, { ...view, unit: "count" }], [0])).toThrow(/unit of view 0/);
    expect(() => fitIpf([0, 1], [2, 2], [createTable([2], [2])])).toThrow(
      /fitIpf: constraint 0 must be over a subset of \[0, 1\]/,
    );
    expect(() => fitIpf([0], [2], [createTable([0], [2], { cells: [1.5, -0.5] })])).toThrow(
      /non-negative cells \(got -0.5\)/,
    );
    expect(() => fitIpf([0], [2], [])).toThrow(/at least one constraint/);
  });
});
