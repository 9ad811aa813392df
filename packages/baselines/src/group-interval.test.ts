import { randomQueries } from "@calm-ldp/marginal-algebra";
import { deriveSeed, seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import type { GroupPlan } from "./api.js";
import { groupEstimate, groupSimulate, planGroups } from "./group-kernel.js";
import { hadamardEstimate, hadamardSimulate, planHadamard } from "./hadamard-kernel.js";
import { chainStore, intervalCoverage, mixedSchema } from "./test-support.js";

const store = chainStore(seededRng(1), 2 ** 15, mixedSchema());
const d = store.schema.attributes.length;

describe("grouped-method intervals (AM, MargRR, MargPS)", () => {
  // [method, k, query size, eps]: k-way queries read one group; smaller ones average several.
  for (const [method, k, t, eps] of [
    ["margps", 2, 2, 1],
    ["margrr", 2, 1, 0.5],
    ["am", 3, 2, 2],
  ] as const) {
    it(`${method}: 95% intervals cover 93-97% of (cell, repetition) pairs (k = ${k}, ${t}-way queries, eps = ${eps}, 200 repetitions)`, () => {
      // Pairs within a repetition are correlated: the tolerance is the accepted band 93-97%, not a binomial z-score.
      const plan: GroupPlan = planGroups(method, { schema: store.schema, n: store.size, eps, k });
      const queries = randomQueries(seededRng(4), d, t, 3);
      const { coverage } = intervalCoverage(store, queries, 200, (r) => {
        const synopsis = groupEstimate(plan, groupSimulate(plan, store, seededRng(deriveSeed(6, r))));
        return (q) => synopsis.query(q, { interval: 0.95 });
      });
      expect(coverage).toBeGreaterThanOrEqual(0.93);
      expect(coverage).toBeLessThanOrEqual(0.97);
    });
  }

  it("covariances (when asked) are symmetric with the squared standard errors on the diagonal; the center is the raw answer", () => {
    const margPlan = planGroups("margps", { schema: store.schema, n: store.size, eps: 1, k: 2 });
    const marg = groupEstimate(margPlan, groupSimulate(margPlan, store, seededRng(7)));
    const htPlan = planHadamard("inpht", { schema: store.schema, n: store.size, eps: 1, k: 2 });
    const ht = hadamardEstimate(htPlan, hadamardSimulate(htPlan, store, seededRng(8)));
    for (const synopsis of [marg, ht]) {
      const answer = synopsis.query([0, 3], { interval: 0.9, covariance: true });
      const size = answer.cells.length;
      expect(size).toBe(15);
      const cov = answer.covariance!;
      const raw = synopsis.query([0, 3]).cells;
      for (let a = 0; a < size; a++) {
        expect(answer.center[a]!).toBeCloseTo(raw[a]!, 12);
        expect(cov[a * size + a]!).toBeCloseTo(answer.standardError[a]! ** 2, 14);
        for (let b = 0; b < size; b++) expect(cov[a * size + b]!).toBeCloseTo(cov[b * size + a]!, 14);
      }
    }
  });
});
