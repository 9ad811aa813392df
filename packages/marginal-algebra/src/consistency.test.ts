import { type Rng, sampleWithoutReplacement, seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import type { MarginalTable } from "./api.js";
import { intersect } from "./attribute-set.js";
import { makeConsistent, maxInconsistency } from "./consistency.js";
import { sumDeviationTransform } from "./consistency-components.js";
import { projectTable, tableTotal } from "./table.js";
import { gaussian, randomDistribution } from "./test-support.js";

const CARDS = [2, 3, 2, 4, 2, 3, 2];

/** Views of a random distribution over 7 attributes, each cell plus N(0, sigma^2) noise. */
function noisyViews(rng: Rng, sets: readonly number[][], sigma: number): MarginalTable[] {
  const all = [0, 1, 2, 3, 4, 5, 6];
  const joint = randomDistribution(rng, all, CARDS);
  return sets.map((set) => {
    const view = projectTable(joint, set);
    for (let u = 0; u < view.cells.length; u++) view.cells[u] += sigma * gaussian(rng);
    return view;
  });
}

function subsetsOf(set: readonly number[]): number[][] {
  const out: number[][] = [];
  for (let mask = 0; mask < 1 << set.length; mask++) out.push(set.filter((_, i) => (mask >>> i) & 1));
  return out;
}

function randomSets(rng: Rng, count: number): number[][] {
  return Array.from({ length: count }, () =>
    Array.from(sampleWithoutReplacement(rng, 7, 2 + (rng.nextUint32() % 3))),
  );
}

describe("makeConsistent (../../../docs/algorithms.md#consistency)", () => {
  it.each(["components", "steps"] as const)(
    "%s: makes every pair of views agree on every shared subset to 1e-9, with equal totals",
    (method) => {
      for (let trial = 0; trial < 20; trial++) {
        const rng = seededRng(100 + trial);
        const views = noisyViews(rng, randomSets(rng, 3 + (trial % 6)), 0.02);
        expect(maxInconsistency(views)).toBeGreaterThan(1e-4);
        const consistent = makeConsistent(views, { method });
        for (let i = 0; i < views.length; i++) {
          for (let j = i + 1; j < views.length; j++) {
            const shared = intersect(consistent[i]!.attributes, consistent[j]!.attributes);
            for (const subset of subsetsOf(shared)) {
              const a = projectTable(consistent[i]!, subset).cells;
              const b = projectTable(consistent[j]!, subset).cells;
              for (let c = 0; c < a.length; c++) expect(Math.abs(a[c]! - b[c]!)).toBeLessThan(1e-9);
            }
          }
          expect(tableTotal(consistent[i]!)).toBeCloseTo(tableTotal(consistent[0]!), 12);
        }
        expect(maxInconsistency(consistent)).toBeLessThan(1e-9);
      }
    },
  );

  it("computes the same views by the literal steps and by interaction components (to 1e-12)", () => {
    for (let trial = 0; trial < 30; trial++) {
      const rng = seededRng(500 + trial);
      const sets = randomSets(rng, 2 + (trial % 9));
      if (trial % 3 === 0) sets.push([...sets[0]!]); // a repeated view set
      const views = noisyViews(rng, sets, 0.05);
      const steps = makeConsistent(views, { method: "steps" });
      const components = makeConsistent(views, { method: "components" });
      steps.forEach((view, i) => {
        view.cells.forEach((x, u) => {
          expect(Math.abs(x - components[i]!.cells[u]!)).toBeLessThan(1e-12);
        });
      });
    }
  });

  it.each(["components", "steps"] as const)(
    "%s: leaves already-consistent views unchanged and does not modify its input",
    (method) => {
      const rng = seededRng(7);
      const views = noisyViews(
        rng,
        [
          [0, 1, 2],
          [1, 2, 3],
          [0, 3],
          [4, 5, 6],
          [2, 5],
        ],
        0,
      );
      const before = views.map((v) => Float64Array.from(v.cells));
      expect(maxInconsistency(views)).toBeLessThan(1e-15);
      const consistent = makeConsistent(views, { method });
      consistent.forEach((view, i) => {
        view.cells.forEach((x, u) => {
          expect(Math.abs(x - before[i]![u]!)).toBeLessThan(1e-15);
        });
        expect(views[i]!.cells).toEqual(before[i]);
        expect(view.cells).not.toBe(views[i]!.cells);
      });
    },
  );

  it("applies the formula exactly on a hand-checked case (weights 1/C_i, correction spread over C_i cells)", () => {
    // V1 = {0, 1} (2 x 2), V2 = {1, 2} (2 x 3). Closure: {}, {1}.
    // {}: totals 1.2 and 0.9, C = 4 and 6, weights 0.6 / 0.4, target 1.08.
    // {1}: both views then project to marginals; C = 2 and 3, weights 0.6 / 0.4.
    const v1 = {
      attributes: [0, 1],
      cardinalities: [2, 2],
      cells: Float64Array.of(0.1, 0.2, 0.3, 0.6),
      unit: "fraction" as const,
    };
    const v2 = {
      attributes: [1, 2],
      cardinalities: [2, 3],
      cells: Float64Array.of(0.1, 0.1, 0.1, 0.2, 0.2, 0.2),
      unit: "fraction" as const,
    };
    for (const method of ["components", "steps"] as const) {
      const [c1, c2] = makeConsistent([v1, v2], { method });
      // After {}: v1 cells += (1.08 - 1.2) / 4 = -0.03; v2 cells += (1.08 - 0.9) / 6 = +0.03.
      // v1 projected onto {1}: [0.1 + 0.3 - 0.06, 0.2 + 0.6 - 0.06] = [0.34, 0.74];
      // v2 projected onto {1}: [0.3 + 0.09, 0.6 + 0.09] = [0.39, 0.69]; target = 0.6 v1 + 0.4 v2 = [0.36, 0.72].
      // v1 cells get (T - T1) / 2 = [+0.01, -0.01]; v2 cells get (T - T2) / 3 = [-0.01, +0.01].
      const expected1 = [0.1 - 0.03 + 0.01, 0.2 - 0.03 - 0.01, 0.3 - 0.03 + 0.01, 0.6 - 0.03 - 0.01];
      const expected2 = [0.12, 0.12, 0.12, 0.24, 0.24, 0.24];
      c1!.cells.forEach((x, u) => {
        expect(x).toBeCloseTo(expected1[u]!, 14);
      });
      c2!.cells.forEach((x, u) => {
        expect(x).toBeCloseTo(expected2[u]!, 14);
      });
    }
  });

  it("uses the minimum-variance weighted average (simulation)", () => {
    // V1 = {0, 1} (2 x 3 cells), V2 = {1, 2, 3} (3 x 2 x 4 cells); shared A = {1}.
    // Each view cell gets independent N(0, s^2) noise, so T_1[c] sums C_1 = 2 noisy
    // cells (variance 2 s^2) and T_2[c] sums C_2 = 8 (variance 8 s^2). The weights of
    // every closure step are proportional to 1/|V_i|, so the consistent {1}-marginal
    // is w T_1 + (1 - w) T_2 with w = (1/2) / (1/2 + 1/8) = 0.8, and its variance
    // w^2 2 + (1-w)^2 8 = 1.6 s^2 is the minimum over w.
    const rng = seededRng(2024);
    const sigma = 0.01;
    const runs = 20_000;
    const alternatives = [0.5, 0.65, 0.8, 0.95, 1];
    const squared = new Float64Array(alternatives.length);
    let ownSquared = 0;
    let ownSum = 0;
    const truth = projectTable(randomDistribution(seededRng(1), [0, 1, 2, 3], [2, 3, 2, 4]), [0, 1, 2, 3]);
    const clean = [projectTable(truth, [0, 1]), projectTable(truth, [1, 2, 3])];
    const m = projectTable(truth, [1]).cells[0]!;
    for (let r = 0; r < runs; r++) {
      const views = clean.map((view) => {
        const cells = Float64Array.from(view.cells, (x) => x + sigma * gaussian(rng));
        return { ...view, cells };
      });
      const t1 = projectTable(views[0]!, [1]).cells[0]!;
      const t2 = projectTable(views[1]!, [1]).cells[0]!;
      alternatives.forEach((w, i) => {
        squared[i] += (w * t1 + (1 - w) * t2 - m) ** 2;
      });
      const own = projectTable(makeConsistent(views)[0]!, [1]).cells[0]!;
      expect(own).toBeCloseTo(0.8 * t1 + 0.2 * t2, 12);
      ownSquared += (own - m) ** 2;
      ownSum += own - m;
    }
    const variance = (x: number) => x / runs / sigma ** 2;
    // Unbiased: the mean error is within 4.5 standard errors of 0 (false alarm ~7e-6).
    expect(Math.abs(ownSum / runs) / Math.sqrt((1.6 * sigma ** 2) / runs)).toBeLessThan(4.5);
    // Measured variance matches 1.6 s^2: the relative standard error of a variance
    // from 20,000 Gaussian draws is sqrt(2 / 20000) = 1%, so 4.5% is 4.5 sigma.
    expect(Math.abs(variance(ownSquared) - 1.6) / 1.6).toBeLessThan(0.045);
    // Every other weight does worse on the same draws (w = 0.8 is the argmin; the
    // nearest alternatives are 6% above it, far beyond the paired-sample noise).
    alternatives.forEach((w, i) => {
      if (w !== 0.8) expect(squared[i]!).toBeGreaterThan(ownSquared);
    });
  });

  it("rejects mixed units and conflicting cardinalities", () => {
    const a = {
      attributes: [0],
      cardinalities: [2],
      cells: Float64Array.of(0.5, 0.5),
      unit: "fraction" as const,
    };
    expect(() => makeConsistent([a, { ...a, unit: "count" }])).toThrow(
      /makeConsistent: every view must have the unit of view 0/,
    );
    expect(() => makeConsistent([a, { ...a, cardinalities: [3], cells: new Float64Array(3) }])).toThrow(
      /attribute 0 must have one cardinality \(2\) in every view \(got 3\)/,
    );
    expect(() => makeConsistent([])).toThrow(/non-empty/);
    expect(() => makeConsistent([a], { method: "magic" as "steps" })).toThrow(
      /method must be "components" or "steps"/,
    );
  });
});

describe("sumDeviationTransform", () => {
  it("maps each axis to (sum, deviations from the mean) and back", () => {
    const cells = Float64Array.from([1, 2, 3]);
    sumDeviationTransform(cells, [3]);
    expect([...cells]).toEqual([6, 0, 1]);
    // Two attributes (2 x 3), binary fast path included; the inverse restores the cells.
    const table = Float64Array.from([0.1, 0.2, 0.05, 0.3, 0.25, 0.1]);
    const copy = Float64Array.from(table);
    sumDeviationTransform(copy, [2, 3]);
    expect(copy[0]).toBeCloseTo(1, 12); // the total
    sumDeviationTransform(copy, [2, 3], true);
    for (let u = 0; u < table.length; u++) expect(copy[u]).toBeCloseTo(table[u]!, 12);
  });
});
