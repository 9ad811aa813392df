import { type RecordStore, randomQueries } from "@calm-ldp/marginal-algebra";
import { deriveSeed, seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import type { IntervalTable } from "./analytic-interval.js";
import { CannotRunError } from "./errors.js";
import { INTERVAL_METHODS, queryInterval } from "./intervals.js";
import { createMethod } from "./registry.js";
import { runMethod } from "./run.js";
import { bernoulliStore, chainStore, intervalCoverage, mixedSchema } from "./test-support.js";

/**
 * Coverage of the analytic intervals of the linear methods FC, InpRR, InpPS,
 * MargHT and InpOLH: 200 repetitions of the whole collection on a fixed
 * population, a few random queries each; every repetition also checks that the
 * interval's center is the method's raw (linear) answer, which pins the variance
 * formula to the estimator it describes.
 */
function coverage(id: string, store: RecordStore, k: number, t: number, eps: number, reps: number) {
  const method = createMethod(id);
  const plan = method.plan({ schema: store.schema, n: store.size, eps, k });
  const d = store.schema.attributes.length;
  const queries = randomQueries(seededRng(4), d, t, 3);
  return intervalCoverage(store, queries, reps, (r) => {
    const { aggregator } = runMethod(method, plan, store, seededRng(deriveSeed(18, r)));
    const synopsis = method.estimate(plan, aggregator);
    return (q) => {
      const answer = queryInterval(id, synopsis, q, { interval: 0.95 }) as IntervalTable;
      expect(answer.intervalMethod).toBe("analytic");
      if (r === 0) {
        const raw = synopsis.query(q).cells;
        answer.center.forEach((x, a) => {
          expect(x).toBeCloseTo(raw[a]!, 12);
        });
      }
      return answer;
    };
  });
}

describe("analytic intervals of the linear full-domain and MargHT methods", () => {
  const mixed = chainStore(seededRng(1), 2 ** 15, mixedSchema());
  const small = bernoulliStore(seededRng(2), 2 ** 12, 4, 0.3);
  for (const [id, store, k, t, eps] of [
    ["fc", mixed, 2, 2, 1],
    ["inprr", mixed, 2, 2, 2],
    ["inpps", mixed, 2, 2, 2],
    ["marght", mixed, 2, 2, 1],
    ["marght", mixed, 3, 2, 2],
    ["inpolh", small, 2, 2, 1],
  ] as const) {
    it(`${id}: 95% intervals cover 93-97% of (cell, repetition) pairs (k = ${k}, ${t}-way queries, eps = ${eps}, 200 repetitions)`, () => {
      // Pairs within a repetition are correlated: the tolerance is the accepted band 93-97%, not a binomial z-score.
      const result = coverage(id, store, k, t, eps, 200);
      if (process.env.CALM_VERBOSE)
        console.log(
          `${id} k=${k} t=${t} eps=${eps}: coverage ${result.coverage.toFixed(4)} worst cell ${result.worst.toFixed(3)} mean width ${result.width.toFixed(4)} (${result.pairs} pairs)`,
        );
      expect(result.coverage).toBeGreaterThanOrEqual(0.93);
      expect(result.coverage).toBeLessThanOrEqual(0.97);
    });
  }

  it("every listed method answers with an interval; a full-domain release with no report refuses", () => {
    for (const id of ["fc", "inprr", "inpps", "marght", "inpolh"]) expect(INTERVAL_METHODS).toContain(id);
    const method = createMethod("fc");
    const plan = method.plan({ schema: mixed.schema, n: mixed.size, eps: 1, k: 2 });
    const empty = method.estimate(plan, method.createAggregator(plan));
    expect(() => queryInterval("fc", empty, [0, 1], { interval: 0.95 })).toThrow(CannotRunError);
  });
});
