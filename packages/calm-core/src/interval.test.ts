import { contingencyTable, makeConsistent, projectTable, randomQueries } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { createCalmAggregator } from "./aggregator.js";
import { CannotRunError, InvalidParameterError } from "./errors.js";
import { estimateCalm } from "./estimate.js";
import { normalCdf, normalQuantile } from "./normal-quantile.js";
import { planCalm } from "./plan.js";
import { simulateCalm } from "./simulate.js";
import { markovStore } from "./test-support.js";

const n = 2 ** 15;
const cardinalities = [2, 3, 2, 2, 3, 2, 2, 2];
const store = markovStore(seededRng(1), n, cardinalities, 0.6);

describe("normal quantile", () => {
  it("matches known values", () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963985, 8);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 10);
    expect(normalCdf(-1.644853627)).toBeCloseTo(0.05, 9);
    expect(() => normalQuantile(1)).toThrow(InvalidParameterError);
  });
});

describe("CALM intervals", () => {
  it("the analytic center is exactly the consistent (linear) answer, and the release when nothing was clipped", () => {
    const plan = planCalm({ schema: store.schema, n, eps: 2, k: 2 });
    const synopsis = estimateCalm(plan, simulateCalm(plan, store, seededRng(2)), { postProcess: false });
    const consistent = makeConsistent(synopsis.rawViews);
    for (const query of [[1, 4], [0, 7], [2], [0, 3]]) {
      const answer = synopsis.query(query, { interval: 0.9 });
      expect(answer.intervalMethod).toBe("analytic");
      expect(answer.level).toBe(0.9);
      const view = consistent.find((v) => query.every((a) => v.attributes.includes(a)))!;
      const expected = projectTable(view, query).cells;
      answer.center.forEach((x, a) => {
        expect(x).toBeCloseTo(expected[a]!, 12);
        expect(answer.lower[a]!).toBeLessThanOrEqual(Math.max(0, x));
        expect(answer.upper[a]!).toBeGreaterThanOrEqual(Math.min(1, x));
        expect(answer.standardError[a]!).toBeGreaterThan(0);
      });
    }
  });

  it("95% analytic intervals cover the true cells in 93-97% of (cell, repetition) pairs", () => {
    // 120 repetitions x 5 queries x ~6 cells at eps = 1. Pairs within a repetition are
    // correlated, so the tolerance is the accepted band 93-97% (not a binomial z-score);
    // the full sweep (>= 200 repetitions, eps 0.2/1/2, BN and Adult) is in experiments.
    const plan = planCalm({ schema: store.schema, n, eps: 1, k: 2 });
    const queries = randomQueries(seededRng(3), cardinalities.length, 2, 5);
    // The true cells, as fractions (contingencyTable's default unit).
    const truths = queries.map((q) => contingencyTable(store, q).cells);
    let covered = 0;
    let pairs = 0;
    for (let r = 0; r < 120; r++) {
      const synopsis = estimateCalm(plan, simulateCalm(plan, store, seededRng(100 + r)));
      queries.forEach((q, i) => {
        const answer = synopsis.query(q, { interval: 0.95 });
        truths[i]!.forEach((x, a) => {
          pairs++;
          if (x >= answer.lower[a]! && x <= answer.upper[a]!) covered++;
        });
      });
    }
    const coverage = covered / pairs;
    expect(coverage).toBeGreaterThanOrEqual(0.93);
    expect(coverage).toBeLessThanOrEqual(0.97);
  });

  it("the bootstrap agrees with the analytic standard error on a covered query; maximum-entropy queries get bounds, never a bootstrap", () => {
    const plan = planCalm({ schema: store.schema, n, eps: 1, k: 2 });
    const synopsis = estimateCalm(plan, simulateCalm(plan, store, seededRng(4)));
    const analytic = synopsis.query([1, 4], { interval: 0.95 });
    const boot = synopsis.query([1, 4], {
      interval: 0.95,
      intervalMethod: "bootstrap",
      replicates: 200,
      seed: 9,
    });
    expect(boot.intervalMethod).toBe("bootstrap");
    expect(boot.replicates).toBe(200);
    // SE of an SD from 200 draws is ~5%; allow 25% (the plug-in model differs too).
    boot.standardError.forEach((se, a) => {
      expect(se / analytic.standardError[a]!).toBeGreaterThan(0.75);
      expect(se / analytic.standardError[a]!).toBeLessThan(1.25);
    });
    // A 3-way query this l = 2 plan does not cover: maximum entropy, so bound-based.
    expect(plan.l).toBe(2);
    const uncovered = synopsis.query([0, 1, 2], { interval: 0.95 });
    expect(uncovered.intervalMethod).toBe("bounds");
    uncovered.lower.forEach((x, a) => {
      expect(x).toBeLessThanOrEqual(uncovered.upper[a]!);
      expect(Number.isNaN(uncovered.standardError[a]!)).toBe(true);
    });
    for (const intervalMethod of ["analytic", "bootstrap"] as const)
      expect(() => synopsis.query([0, 1, 2], { interval: 0.95, intervalMethod })).toThrow(
        /maximum-entropy fit.*not a sound 0.95 interval/,
      );
    expect(() => synopsis.query([0, 1, 2], { interval: 0.95, covariance: true })).toThrow(CannotRunError);
  });

  it("the covariance (when asked) is symmetric with the squared standard errors on its diagonal; its cell sums match the variance of the sums", () => {
    const plan = planCalm({ schema: store.schema, n, eps: 1, k: 2 });
    const synopsis = estimateCalm(plan, simulateCalm(plan, store, seededRng(6)));
    const answer = synopsis.query([1, 4], { interval: 0.95, covariance: true });
    const size = answer.cells.length;
    const cov = answer.covariance!;
    expect(cov.length).toBe(size * size);
    for (let a = 0; a < size; a++) {
      expect(cov[a * size + a]!).toBeCloseTo(answer.standardError[a]! ** 2, 14);
      for (let b = 0; b < size; b++) expect(cov[a * size + b]!).toBeCloseTo(cov[b * size + a]!, 14);
    }
    // Row 0 of the table (attribute 1 = 0) summed is the 1-way answer's cell 0: same variance.
    const oneWay = synopsis.query([1], { interval: 0.95 });
    const cols = 3;
    let sum = 0;
    for (let a = 0; a < cols; a++) for (let b = 0; b < cols; b++) sum += cov[a * size + b]!;
    expect(Math.sqrt(sum) / oneWay.standardError[0]!).toBeCloseTo(1, 6);
    expect(synopsis.query([1, 4], { interval: 0.95 }).covariance).toBeUndefined();
  });

  it("rejects bad options with typed errors", () => {
    const plan = planCalm({ schema: store.schema, n, eps: 1, k: 2 });
    const aggregator = simulateCalm(plan, store, seededRng(5));
    const synopsis = estimateCalm(plan, aggregator);
    expect(() => synopsis.query([0, 1], { interval: 1.5 })).toThrow(InvalidParameterError);
    expect(() =>
      synopsis.query([0, 1], { interval: 0.95, replicates: 1, intervalMethod: "bootstrap" }),
    ).toThrow(InvalidParameterError);
    expect(() =>
      synopsis.query([0, 1], { interval: 0.95, intervalMethod: "exact" as unknown as "analytic" }),
    ).toThrow(InvalidParameterError);
    const composed = estimateCalm(plan, aggregator, { instantEps: 2 });
    expect(() => composed.query([0, 1], { interval: 0.95 })).toThrow(CannotRunError);
  });

  it("refuses an interval while a view has no reports (its variance is unknown), and still answers the point estimate", () => {
    const plan = planCalm({ schema: store.schema, n, eps: 1, k: 2 });
    const empty = estimateCalm(plan, createCalmAggregator(plan));
    expect(empty.query([0, 1]).cells.length).toBe(6);
    expect(() => empty.query([0, 1], { interval: 0.95 })).toThrow(/view 0 has no reports/);
    expect(() => empty.query([0, 1], { interval: 0.95 })).toThrow(CannotRunError);
  });
});
