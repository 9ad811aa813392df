import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import type { MarginalTable, NonNegativityMethod } from "./api.js";
import { maxInconsistency } from "./consistency.js";
import { sse } from "./metrics.js";
import { postProcessViews } from "./post-process.js";
import { projectTable } from "./table.js";
import { gaussian, randomDistribution } from "./test-support.js";

const SETS = [
  [0, 1, 2],
  [2, 3, 4],
  [0, 4, 5],
  [1, 3, 5],
  [0, 2, 5],
];

function setup(seed: number, sigma: number): { truth: MarginalTable[]; noisy: MarginalTable[] } {
  const rng = seededRng(seed);
  // A skewed joint (cells ~ Exp(1)^3) so that many view cells are small and go negative under noise.
  const joint = randomDistribution(rng, [0, 1, 2, 3, 4, 5], [2, 3, 2, 2, 3, 2]);
  for (let u = 0; u < joint.cells.length; u++) joint.cells[u] = joint.cells[u]! ** 3;
  const total = joint.cells.reduce((s, x) => s + x, 0);
  for (let u = 0; u < joint.cells.length; u++) joint.cells[u] /= total;
  const truth = SETS.map((set) => projectTable(joint, set));
  const noisy = truth.map((view) => ({
    ...view,
    cells: Float64Array.from(view.cells, (x) => x + sigma * gaussian(rng)),
  }));
  return { truth, noisy };
}

describe("postProcessViews", () => {
  for (const method of ["ripple", "norm-sub", "norm-cut"] as NonNegativityMethod[]) {
    it(`${method}: ends consistent and non-negative, or reports what is left`, () => {
      const { noisy } = setup(11, 0.02);
      expect(noisy.some((view) => view.cells.some((x) => x < 0))).toBe(true);
      const result = postProcessViews(noisy, { method, maxRounds: 200 });
      const literal = postProcessViews(noisy, { method, maxRounds: 200, consistency: "steps" });
      expect(literal.rounds).toBe(result.rounds);
      literal.views.forEach((view, i) => {
        view.cells.forEach((x, u) => {
          expect(Math.abs(x - result.views[i]!.cells[u]!)).toBeLessThan(1e-9);
        });
      });
      if (result.converged) {
        expect(result.negativeCells).toBe(0);
        expect(result.maxInconsistency).toBeLessThan(1e-9);
        for (const view of result.views) for (const x of view.cells) expect(x).toBeGreaterThanOrEqual(-1e-12);
      } else {
        expect(result.rounds).toBe(200);
        for (const view of result.views) for (const x of view.cells) expect(x).toBeGreaterThanOrEqual(0);
        expect(result.maxInconsistency).toBeGreaterThan(0);
      }
      expect(result.maxInconsistency).toBeCloseTo(maxInconsistency(result.views), 15);
      // Input untouched.
      expect(noisy[0]!.cells).not.toBe(result.views[0]!.cells);
    });
  }

  it("a cap of one round reports the negatives and the inconsistency left", () => {
    const { noisy } = setup(12, 0.05);
    const result = postProcessViews(noisy, { method: "norm-sub", maxRounds: 1 });
    expect(result.rounds).toBe(1);
    expect(result.converged).toBe(false);
    expect(result.negativeCells).toBe(0);
    expect(result.maxInconsistency).toBeGreaterThan(1e-6);
  });

  it("stops after one round on consistent non-negative input", () => {
    const { truth } = setup(13, 0);
    const result = postProcessViews(truth);
    expect(result).toMatchObject({ rounds: 1, converged: true, negativeCells: 0, negativeMass: 0 });
  });

  it("reduces the error of noisy views (mean SSE over 20 seeds)", () => {
    let before = 0;
    let after = 0;
    for (let seed = 0; seed < 20; seed++) {
      const { truth, noisy } = setup(100 + seed, 0.02);
      const { views } = postProcessViews(noisy);
      truth.forEach((t, i) => {
        before += sse(noisy[i]!, t);
        after += sse(views[i]!, t);
      });
    }
    expect(after).toBeLessThan(0.8 * before);
  });

  it("rejects a bad round cap", () => {
    expect(() => postProcessViews(setup(1, 0).truth, { maxRounds: 0 })).toThrow(
      /maxRounds must be an integer >= 1 \(got 0\)/,
    );
  });
});
