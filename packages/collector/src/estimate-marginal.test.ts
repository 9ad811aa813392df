import { CalmAggregator, calmReport, estimateCalm, estimateCalmPlus, planCalm } from "@calm-ldp/calm-core";
import { createSchema } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { aggregatorFromCounts, estimateMarginal } from "./estimate-marginal.js";
import { viewOracles } from "./round-runtime.js";
import { supportedCells } from "./supported-cells.js";

describe("estimateMarginal", () => {
  const schema = createSchema([2, 4, 3, 2, 4].map((cardinality, i) => ({ name: `x${i}`, cardinality })));
  const plan = planCalm({ schema, n: 20_000, eps: 1, k: 2 });

  it("from support counts gives exactly the answers of the per-report in-process pipeline", () => {
    const rng = seededRng(5);
    const aggregator = new CalmAggregator(plan);
    const reportsPerView = new Array<number>(plan.m).fill(0);
    const support = plan.views.map((view) => new Float64Array(view.cells));
    const oracles = viewOracles(plan);
    for (let i = 0; i < 20_000; i++) {
      const record = schema.attributes.map((a) => rng.nextUint32() % a.labels.length);
      const report = calmReport(plan, record, { rng });
      aggregator.add(report);
      reportsPerView[report.view]!++;
      for (const cell of supportedCells(oracles[report.view]!, report.report)) support[report.view]![cell]!++;
    }
    const counts = { reportsPerView, support };
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
