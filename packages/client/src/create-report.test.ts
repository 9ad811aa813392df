import { CalmAggregator } from "@calm-ldp/calm-core";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { createReport } from "./create-report.js";
import { decodeReport } from "./decode-report.js";
import { isReportId } from "./report-id.js";
import { testPlans } from "./test-support.js";

describe("createReport", () => {
  it("uses the given id, or a fresh UUID; defaults to the cryptographic generator", () => {
    const plan = testPlans().grr!;
    const id = "6ba7b810-9dad-41d1-80b4-00c04fd430c8";
    expect(createReport(plan, [1, 0, 1, 0, 1, 0], { rng: seededRng(1), id }).id).toBe(id);
    const fresh = createReport(plan, [1, 0, 1, 0, 1, 0]);
    expect(isReportId(fresh.id)).toBe(true);
  });

  it("estimates every view's marginal without bias through the wire (GRR and OUE plans)", () => {
    // 30,000 users all holding the record r; each view's estimated cell of r's
    // projection must be near 1. Tolerance: 5 standard deviations of the oracle's
    // estimate (variance from the oracle's exact formula with f = 1), so a correct
    // implementation fails with probability < 1e-6 per view.
    for (const name of ["grr", "oue"]) {
      const plan = testPlans()[name]!;
      const rng = seededRng(31);
      const aggregator = new CalmAggregator(plan);
      const record = [1, 0, 1, 1, 0, 1];
      for (let i = 0; i < 30_000; i++)
        aggregator.add(decodeReport(plan, JSON.parse(JSON.stringify(createReport(plan, record, { rng })))));
      plan.views.forEach((view, v) => {
        const counts = aggregator.views[v]!;
        const cell = view.attributes.reduce((index, a) => index * 2 + record[a]!, 0);
        const estimate = counts.estimate()[cell]!;
        const sd = Math.sqrt(counts.oracle.variance(counts.reports, 1));
        expect(Math.abs(estimate - 1), `${name} view ${v}`).toBeLessThan(5 * sd);
      });
    }
  });
});
