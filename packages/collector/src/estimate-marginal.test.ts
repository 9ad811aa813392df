import { estimateCalm, estimateCalmPlus, planCalm } from "@calm-ldp/calm-core";
import { createSchema } from "@calm-ldp/marginal-algebra";
import { describe, expect, it } from "vitest";
import { aggregatorFromCounts, estimateMarginal } from "./estimate-marginal.js";
import { simulatedCounts } from "./test-support.js";

describe("estimateMarginal", () => {
  const schema = createSchema([2, 4, 3, 2, 4].map((cardinality, i) => ({ name: `x${i}`, cardinality })));
  const plan = planCalm({ schema, n: 20_000, eps: 1, k: 2 });

  it("from support counts gives exactly the answers of the per-report in-process pipeline", () => {
    const { counts, aggregator } = simulatedCounts(plan, 20_000, 5);
    expect(aggregatorFromCounts(plan, counts).reportsPerView()).toEqual(aggregator.reportsPerView());
    const synopsis = estimateCalm(plan, aggregator);
    for (const query of [
      [0, 1],
      [1, 4],
      [0, 2, 3],
      [0, 1, 2, 3, 4],
    ]) {
      const ours = estimateMarginal(plan, counts, query);
      expect(Array.from(ours.table.cells)).toEqual(Array.from(synopsis.query(query).cells));
      expect(ours.n).toBe(20_000);
      const covered = plan.views.some((v) => query.every((a) => v.attributes.includes(a)));
      expect(ours.method).toBe(covered ? "projection" : "maxent");
      expect(ours.expectedSse === null).toBe(!covered);
      expect(ours.estimator).toBe("calm");
      const plus = estimateMarginal(plan, counts, query, {}, "calm-plus");
      expect(plus.estimator).toBe("calm-plus");
      expect(plus.expectedSse).toBeNull();
      expect(Array.from(plus.table.cells)).toEqual(
        Array.from(estimateCalmPlus(plan, aggregator).query(query).cells),
      );
    }
  });

  /** Support counts of `n` uniform seeded records reported through the plan (as the collector holds them). */
  const countsOf = (n: number, seed: number) => simulatedCounts(plan, n, seed).counts;

  it("with interval: calm-core's per-cell interval around the consistent center, narrowing as reports grow", () => {
    const small = countsOf(5_000, 7);
    const large = countsOf(20_000, 8);
    const covered = plan.views[0]!.attributes;
    const meanSe = (answer: ReturnType<typeof estimateMarginal>) => {
      const { standardError } = answer.interval!;
      return standardError.reduce((sum, se) => sum + se, 0) / standardError.length;
    };
    const [a, b] = [small, large].map((counts) => {
      const answer = estimateMarginal(plan, counts, covered, {}, "calm", 0.95);
      const plain = estimateMarginal(plan, counts, covered);
      // The table is the plain answer; the interval is calm-core's for the same counts.
      expect(Array.from(answer.table.cells)).toEqual(Array.from(plain.table.cells));
      const core = estimateCalm(plan, aggregatorFromCounts(plan, counts)).query(covered, { interval: 0.95 });
      const interval = answer.interval!;
      expect(interval.intervalMethod).toBe("analytic");
      expect(interval.level).toBe(0.95);
      expect(Array.from(interval.lower)).toEqual(Array.from(core.lower));
      expect(Array.from(interval.upper)).toEqual(Array.from(core.upper));
      for (let i = 0; i < interval.center.length; i++) {
        const se = interval.standardError[i]!;
        expect(Number.isFinite(se) && se > 0).toBe(true);
        expect(interval.lower[i]!).toBeLessThanOrEqual(Math.max(0, interval.center[i]!));
        expect(interval.upper[i]!).toBeGreaterThanOrEqual(Math.min(1, interval.center[i]!));
        expect(interval.upper[i]!).toBeGreaterThan(interval.lower[i]!);
      }
      return answer;
    });
    // 4x the reports: standard errors shrink by about 2 (~ 1/sqrt(n); measured 1.93, the rest is the
    // plug-in estimate and the random split of reports over views). Widths shrink less: clipping at 0.
    const ratio = meanSe(a!) / meanSe(b!);
    expect(ratio).toBeGreaterThan(1.8);
    expect(ratio).toBeLessThan(2.2);
  });

  it("with interval: refused for calm-plus and when a view has no reports", () => {
    const counts = countsOf(2_000, 9);
    expect(() => estimateMarginal(plan, counts, [0, 1], {}, "calm-plus", 0.95)).toThrow(
      /"calm" estimator only/,
    );
    const empty = { reportsPerView: counts.reportsPerView.map(() => 0), support: counts.support };
    expect(() => estimateMarginal(plan, empty, [0, 1], {}, "calm", 0.95)).toThrow(/reports in every view/);
  });

  it("answers uniformly with no expected error when nothing was counted", () => {
    const empty = {
      reportsPerView: new Array<number>(plan.m).fill(0),
      support: plan.views.map((v) => new Float64Array(v.cells)),
    };
    const answer = estimateMarginal(plan, empty, [0, 1]);
    expect(answer.n).toBe(0);
    expect(answer.expectedSse).toBeNull();
    for (const cell of answer.table.cells) expect(cell).toBeCloseTo(1 / 8, 12);
  });
});
