import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { CannotRunError, InvalidParameterError } from "./errors.js";
import { estimateCalmPlus } from "./estimate-plus.js";
import { buildGraphicalModel } from "./graphical-model.js";
import { interactionTransform } from "./interaction-basis.js";
import { fitJoint } from "./joint-fit.js";
import { planCalm } from "./plan.js";
import { simulateCalm } from "./simulate.js";
import { markovStore, maxViewDisagreement } from "./test-support.js";

/** Every cell of the full domain as its digits (first attribute most significant). */
function domain(cardinalities: readonly number[]): number[][] {
  const out: number[][] = [[]];
  for (const c of cardinalities) {
    const next: number[][] = [];
    for (const prefix of out) for (let x = 0; x < c; x++) next.push([...prefix, x]);
    out.splice(0, out.length, ...next);
  }
  return out;
}

function cellOf(
  digits: readonly number[],
  attributes: readonly number[],
  cardinalities: readonly number[],
): number {
  let index = 0;
  for (const a of attributes) index = index * cardinalities[a]! + digits[a]!;
  return index;
}

/** Brute-force marginal over `attributes` (ascending) of the full table `p`. */
function marginalOf(
  p: Float64Array,
  cardinalities: readonly number[],
  attributes: readonly number[],
): Float64Array {
  const out = new Float64Array(attributes.reduce((s, a) => s * cardinalities[a]!, 1));
  domain(cardinalities).forEach((digits, i) => {
    out[cellOf(digits, attributes, cardinalities)]! += p[i]!;
  });
  return out;
}

const coefficients = (cells: Float64Array, cards: readonly number[]) => {
  const c = Float64Array.from(cells);
  interactionTransform(c, cards, false);
  return c;
};

describe("graphical model (junction tree)", () => {
  // A loopy graph (cycle 0-1-2-3-0 plus a triple 2,3,4): triangulation must add a chord.
  const cardinalities = [3, 2, 3, 2, 3];
  const views = [
    [0, 1],
    [1, 2],
    [0, 3],
    [2, 3, 4],
  ];
  const rng = seededRng(5);
  const theta = views.map((v) =>
    Float64Array.from(
      { length: v.reduce((s, a) => s * cardinalities[a]!, 1) },
      () => 2 * rng.nextFloat() - 1,
    ),
  );
  const full = Float64Array.from(domain(cardinalities), (digits) =>
    Math.exp(views.reduce((s, v, i) => s + theta[i]![cellOf(digits, v, cardinalities)]!, 0)),
  );
  const total = full.reduce((s, x) => s + x, 0);
  for (let i = 0; i < full.length; i++) full[i]! /= total;

  it("calibration gives every view's exact marginal under p ~ exp(sum theta_v)", () => {
    const model = buildGraphicalModel(cardinalities, views, 1e6);
    const marginals = model.marginals(theta);
    views.forEach((v, i) => {
      const exact = marginalOf(full, cardinalities, v);
      exact.forEach((x, j) => {
        expect(marginals[i]![j]).toBeCloseTo(x, 12);
      });
    });
  });

  it("queries by variable elimination equal the brute-force marginal, inside or across cliques", () => {
    const model = buildGraphicalModel(cardinalities, views, 1e6);
    for (const q of [[0, 2], [1, 4], [0, 1, 2, 3, 4], [3]]) {
      const exact = marginalOf(full, cardinalities, q);
      const answer = model.query(theta, q, 1e6);
      exact.forEach((x, j) => {
        expect(answer[j]).toBeCloseTo(x, 12);
      });
    }
  });

  it("queries do not underflow when the views' potentials peak at different cells", () => {
    // exp(theta_A + theta_B) = exp(-800) everywhere (0 in floating point): p is uniform.
    const cards = [2, 2, 2];
    const extreme = buildGraphicalModel(
      cards,
      [
        [0, 1],
        [1, 2],
      ],
      100,
    );
    const thetaA = Float64Array.from([-800, 0, -800, 0]); // -800 where x1 = 0
    const thetaB = Float64Array.from([0, 0, -800, -800]); // -800 where x1 = 1
    const answer = extreme.query([thetaA, thetaB], [0, 2], 100);
    for (const x of answer) expect(x).toBeCloseTo(0.25, 12);
  });

  it("refuses a junction tree above the cell limit, naming the size it needs", () => {
    expect(() => buildGraphicalModel(cardinalities, views, 10)).toThrow(CannotRunError);
    expect(() => buildGraphicalModel(cardinalities, views, 10)).toThrow(/clique of 18 cells/);
  });
});

describe("fitJoint", () => {
  // A chain 0 - 1 - 2 - 3: its pairwise marginals determine it, so the fit is exact everywhere.
  const cardinalities = [3, 2, 3, 2];
  const views = [
    [0, 1],
    [1, 2],
    [2, 3],
  ];
  const full = Float64Array.from(domain(cardinalities), ([a, b, c, d]) =>
    Math.exp(0.9 * (a === b ? 1 : 0) + 1.3 * (b === c ? 1 : 0) - 0.7 * (c === d ? 1 : 0) + 0.4 * a!),
  );
  const total = full.reduce((s, x) => s + x, 0);
  for (let i = 0; i < full.length; i++) full[i]! /= total;
  const exactViews = views.map((v) => marginalOf(full, cardinalities, v));
  const targets = exactViews.map((m, i) =>
    coefficients(
      m,
      views[i]!.map((a) => cardinalities[a]!),
    ),
  );
  const weights = targets.map((t) => new Float64Array(t.length).fill(1));

  it("exact marginals in, exact marginals (and exact answers to any query) out", () => {
    const fit = fitJoint(cardinalities, views, targets, weights, { tolerance: 1e-10, maxIterations: 20000 });
    expect(fit.converged).toBe(true);
    expect(fit.loss).toBeLessThan(1e-12);
    exactViews.forEach((m, i) => {
      m.forEach((x, j) => {
        expect(Math.abs(fit.marginals[i]![j]! - x)).toBeLessThan(1e-6);
      });
    });
    // The chain's model is p itself: a 3-way marginal no view holds comes out exact.
    const exact = marginalOf(full, cardinalities, [0, 1, 3]);
    const answer = fit.model.query(fit.theta, [0, 1, 3], 1e6);
    exact.forEach((x, j) => {
      expect(Math.abs(answer[j]! - x)).toBeLessThan(1e-5);
    });
  });

  it("targets outside the marginal polytope give non-negative, consistent marginals", () => {
    // Noisy targets with a negative cell in view 0.
    const noisy = exactViews.map((m) => Float64Array.from(m));
    noisy[0]![0]! -= 0.4;
    noisy[0]![1]! += 0.4;
    const noisyTargets = noisy.map((m, i) =>
      coefficients(
        m,
        views[i]!.map((a) => cardinalities[a]!),
      ),
    );
    const fit = fitJoint(cardinalities, views, noisyTargets, weights);
    expect(fit.converged).toBe(true);
    for (const m of fit.marginals) {
      expect(m.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 12);
      for (const x of m) expect(x).toBeGreaterThanOrEqual(0);
    }
    // Views 0 and 1 agree on attribute 1.
    const a = [fit.marginals[0]![0]! + fit.marginals[0]![2]! + fit.marginals[0]![4]!];
    const b = [fit.marginals[1]![0]! + fit.marginals[1]![1]! + fit.marginals[1]![2]!];
    expect(a[0]).toBeCloseTo(b[0]!, 12);
  });

  it("reports non-convergence when the step cap runs out", () => {
    const fit = fitJoint(cardinalities, views, targets, weights, { maxIterations: 3 });
    expect(fit.converged).toBe(false);
    expect(fit.iterations).toBe(3);
  });

  it("rejects bad input with a typed error naming it", () => {
    expect(() => fitJoint(cardinalities, views, targets.slice(1), weights)).toThrow(InvalidParameterError);
    expect(() =>
      fitJoint(
        cardinalities,
        [
          [1, 0],
          [1, 2],
          [2, 3],
        ],
        targets,
        weights,
      ),
    ).toThrow(/strictly ascending/);
    expect(() =>
      fitJoint(
        cardinalities,
        [
          [0, 7],
          [1, 2],
          [2, 3],
        ],
        targets,
        weights,
      ),
    ).toThrow(/out of range/);
    const negative = weights.map((w) => Float64Array.from(w));
    negative[1]![2] = -1;
    expect(() => fitJoint(cardinalities, views, targets, negative)).toThrow(
      /weights must be finite and >= 0/,
    );
    const nan = targets.map((t) => Float64Array.from(t));
    nan[2]![1] = Number.NaN;
    expect(() => fitJoint(cardinalities, views, nan, weights)).toThrow(/targets must be finite/);
    expect(() => fitJoint(cardinalities, views, targets, weights, { maxIterations: 0 })).toThrow(
      /maxIterations/,
    );
    expect(() => fitJoint(cardinalities, views, targets, weights, { maxModelCells: 5 })).toThrow(
      CannotRunError,
    );
  });
});

describe("calm-plus with the joint estimator", () => {
  const n = 2 ** 13;
  const cardinalities = [3, 3, 2, 3, 2, 3];
  const store = markovStore(seededRng(21), n, cardinalities, 0.7);
  const plan = planCalm({ schema: store.schema, n, eps: 0.5, k: 3 });
  const aggregator = simulateCalm(plan, store, seededRng(22));

  it("releases non-negative, consistent views and distributions as answers; reports the fit", () => {
    const synopsis = estimateCalmPlus(plan, aggregator, { estimator: "joint" });
    expect(synopsis.joint?.fallback).toBeUndefined();
    expect(synopsis.joint?.converged).toBe(true);
    expect(synopsis.converged).toBe(true);
    expect(synopsis.joint!.iterations).toBeGreaterThan(0);
    for (const view of synopsis.views) for (const x of view.cells) expect(x).toBeGreaterThanOrEqual(0);
    expect(maxViewDisagreement(synopsis.views)).toBeLessThan(1e-9);
    const answer = synopsis.query([0, 3, 5]);
    expect(answer.cells.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 10);
    for (const x of answer.cells) expect(x).toBeGreaterThanOrEqual(0);
    // A view's own attributes are answered by projection of the model's (= the released) view.
    const view = plan.views[0]!;
    const projected = synopsis.answer(view.attributes);
    expect(projected.method).toBe("projection");
    projected.table.cells.forEach((x, i) => {
      expect(x).toBeCloseTo(synopsis.views[0]!.cells[i]!, 9);
    });
    expect(() => synopsis.query([0, 0])).toThrow(InvalidParameterError);
    expect(() => synopsis.query([0, 9])).toThrow(InvalidParameterError);
  });

  it("falls back to the pooled estimator when the model is too large, saying which size it needed", () => {
    const synopsis = estimateCalmPlus(plan, aggregator, { estimator: "joint", joint: { maxModelCells: 4 } });
    expect(synopsis.joint?.fallback).toMatch(/needs a clique of \d+ cells/);
    const pooled = estimateCalmPlus(plan, aggregator);
    expect(synopsis.query([0, 1, 2]).cells).toEqual(pooled.query([0, 1, 2]).cells);
  });

  it("reports a fit stopped by its step cap as not converged", () => {
    const synopsis = estimateCalmPlus(plan, aggregator, { estimator: "joint", joint: { maxIterations: 2 } });
    expect(synopsis.joint?.converged).toBe(false);
    expect(synopsis.converged).toBe(false);
  });

  it('answers "maxent": max entropy over the same fitted views', () => {
    const model = estimateCalmPlus(plan, aggregator, { estimator: "joint" });
    const maxent = estimateCalmPlus(plan, aggregator, { estimator: "joint", joint: { answers: "maxent" } });
    expect(maxent.joint?.converged).toBe(true);
    maxent.views.forEach((view, v) => {
      expect(view.cells).toEqual(model.views[v]!.cells);
    });
    const answer = maxent.query([0, 2, 4]);
    expect(answer.cells.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 9);
    for (const x of answer.cells) expect(x).toBeGreaterThanOrEqual(0);
    expect(() =>
      estimateCalmPlus(plan, aggregator, { estimator: "joint", joint: { answers: "x" as never } }),
    ).toThrow(/joint.answers/);
  });

  it("rejects an unknown estimator or targets", () => {
    expect(() => estimateCalmPlus(plan, aggregator, { estimator: "pgm" as never })).toThrow(
      InvalidParameterError,
    );
    expect(() =>
      estimateCalmPlus(plan, aggregator, { estimator: "joint", joint: { targets: "x" as never } }),
    ).toThrow(/joint.targets/);
  });
});
