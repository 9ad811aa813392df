import { randomQueries } from "@calm-ldp/marginal-algebra";
import { deriveSeed, seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { InvalidParameterError, UnsupportedQueryError } from "./errors.js";
import { hadamardEstimate, hadamardSimulate, planHadamard } from "./hadamard-kernel.js";
import { queryInterval } from "./intervals.js";
import { chainStore, intervalCoverage, mixedSchema } from "./test-support.js";

describe("InpHT intervals", () => {
  const store = chainStore(seededRng(1), 2 ** 15, mixedSchema());
  const d = store.schema.attributes.length;

  it("center is the raw linear answer; a post-processed release keeps its table", () => {
    const plan = planHadamard("inpht", { schema: store.schema, n: store.size, eps: 1, k: 2 });
    const aggregator = hadamardSimulate(plan, store, seededRng(2));
    const raw = hadamardEstimate(plan, aggregator);
    const cut = hadamardEstimate(plan, aggregator, "norm-sub");
    const answer = cut.query([0, 2], { interval: 0.95 });
    expect(answer.intervalMethod).toBe("analytic");
    const linear = raw.query([0, 2]).cells;
    answer.center.forEach((x, a) => {
      expect(x).toBeCloseTo(linear[a]!, 12);
      expect(answer.standardError[a]!).toBeGreaterThan(0);
    });
    const released = cut.query([0, 2]).cells;
    answer.cells.forEach((x, a) => {
      expect(x).toBeCloseTo(released[a]!, 12);
    });
    expect(() => raw.query([0, 2], { interval: 0 })).toThrow(InvalidParameterError);
    const margPlan = planHadamard("marght", { schema: store.schema, n: store.size, eps: 1, k: 2 });
    const marg = hadamardEstimate(margPlan, hadamardSimulate(margPlan, store, seededRng(3)));
    // MargHT answers only queries within k attributes, with or without an interval.
    expect(() => marg.query([0, 1, 2], { interval: 0.95 })).toThrow(UnsupportedQueryError);
    expect(queryInterval("inpht", raw, [0, 2], { interval: 0.95 })?.lower.length).toBe(answer.cells.length);
    expect(queryInterval("marght", marg, [0, 1], { interval: 0.95 })?.intervalMethod).toBe("analytic");
  });

  for (const [k, eps] of [
    [2, 0.5],
    [3, 2],
  ] as const) {
    it(`95% intervals cover 93-97% of (cell, repetition) pairs, k = ${k}, eps = ${eps} (200 repetitions)`, () => {
      // Pairs within a repetition are correlated: the tolerance is the accepted band 93-97%, not a binomial z-score.
      const plan = planHadamard("inpht", { schema: store.schema, n: store.size, eps, k });
      const queries = randomQueries(seededRng(4), d, k, 4);
      const { coverage, pairs } = intervalCoverage(store, queries, 200, (r) => {
        const synopsis = hadamardEstimate(plan, hadamardSimulate(plan, store, seededRng(deriveSeed(5, r))));
        return (q) => synopsis.query(q, { interval: 0.95 });
      });
      console.log(`InpHT k=${k} eps=${eps}: coverage ${coverage.toFixed(4)} over ${pairs} pairs`);
      expect(coverage).toBeGreaterThanOrEqual(0.93);
      expect(coverage).toBeLessThanOrEqual(0.97);
    });
  }
});
