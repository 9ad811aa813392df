import { CalmAggregator, type CalmPlan, planCalm } from "@calm-ldp/calm-core";
import { createSchema } from "@calm-ldp/marginal-algebra";
import { seededRng, uniformInt } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { craftReport } from "../attacks/craft.js";
import { decodeReport } from "../decode-report.js";
import { chiSquareQuantile, unaryOnesFlags } from "./unary-ones.js";

/** d binary attributes, P(1) = 0.3, pair views forced to OUE (the probe with `oracle: "oue"`). */
function ouePlan(eps: number, d = 8): CalmPlan {
  const schema = createSchema(Array.from({ length: d }, (_, i) => ({ name: `a${i}`, cardinality: 2 })));
  return planCalm({ schema, n: 2 ** 17, eps, k: 2 }, { oracle: "oue" });
}

/** An honest round through the real sampler: `perView` users per view, each view's cell drawn from the iid record. */
function honestRound(plan: CalmPlan, perView: number, seed: number): CalmAggregator {
  const rng = seededRng(seed);
  const aggregator = new CalmAggregator(plan);
  plan.views.forEach((view, v) => {
    for (let u = 0; u < perView; u++) {
      let cell = 0;
      for (let j = 0; j < view.attributes.length; j++)
        cell = cell * 2 + (rng.nextUint32() / 2 ** 32 < 0.3 ? 1 : 0);
      aggregator.views[v]!.add(aggregator.views[v]!.oracle.perturb(cell, rng));
    }
  });
  return aggregator;
}

const flagsOf = (plan: CalmPlan, aggregator: CalmAggregator) =>
  unaryOnesFlags(
    plan,
    aggregator.views.map((view) => view.counts()),
    aggregator.views.map((view) => view.reports),
  );

describe("unary-ones flag (count of ones of OUE views)", () => {
  it("has a Wilson-Hilferty quantile within 1% of the tabulated chi-square quantiles", () => {
    // Tabulated chi-square 0.99 quantiles: df 10 -> 23.209, 28 -> 48.278, 100 -> 135.807.
    expect(chiSquareQuantile(10, 0.99) / 23.209).toBeCloseTo(1, 2);
    expect(chiSquareQuantile(28, 0.99) / 48.278).toBeCloseTo(1, 2);
    expect(chiSquareQuantile(100, 0.99) / 135.807).toBeCloseTo(1, 2);
  });

  it("flags about 1% of honest rounds (real sampler, 300 rounds of 28 views x 200 reports)", () => {
    const plan = ouePlan(1);
    let flagged = 0;
    for (let r = 0; r < 300; r++) if (flagsOf(plan, honestRound(plan, 200, 1000 + r)).length > 0) flagged++;
    // Binomial(300, 0.01): mean 3, sd 1.7; 3 + 3.5 sd < 10 (one-sided p < 0.001 if the rate were right).
    expect(flagged).toBeLessThanOrEqual(9);
  });

  it("flags maximal-gain fakes at beta = 0.05 (n = 2^17 honest, eps 1 and 0.5)", () => {
    for (const eps of [1, 0.5]) {
      const plan = ouePlan(eps);
      const perView = Math.round(2 ** 17 / plan.views.length);
      const aggregator = honestRound(plan, perView, 7);
      expect(flagsOf(plan, aggregator)).toEqual([]);
      const rng = seededRng(11);
      const target = { attributes: [0, 1], values: [1, 1] };
      const fakes = Math.round((0.05 * 2 ** 17) / 0.95);
      for (let i = 0; i < fakes; i++) {
        const v = uniformInt(rng, plan.m);
        aggregator.views[v]!.add(
          decodeReport(plan, craftReport("mga", plan, target, v, rng)).report as never,
        );
      }
      const [flag] = flagsOf(plan, aggregator);
      expect(flag?.kind).toBe("unary-ones");
      expect(flag!.chiSquare).toBeGreaterThan(flag!.threshold);
    }
  });
});
