import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { createReport } from "./create-report.js";
import { encodeReport } from "./encode-report.js";
import { perturbRecord } from "./perturb-record.js";
import { createReportId, isReportId } from "./report-id.js";
import { wireKindPlans } from "./testing.js";

describe("createReport", () => {
  it("uses the given id, or a fresh UUID; defaults to the cryptographic generator", () => {
    const plan = wireKindPlans().grr!;
    const id = "6ba7b810-9dad-41d1-80b4-00c04fd430c8";
    expect(createReport(plan, [1, 0, 1, 0, 1, 0], { rng: seededRng(1), id }).id).toBe(id);
    const fresh = createReport(plan, [1, 0, 1, 0, 1, 0]);
    expect(isReportId(fresh.id)).toBe(true);
  });

  it("is perturbRecord then encodeReport with a fresh random (version 4) id, drawing from one generator in that order", () => {
    for (const plan of Object.values(wireKindPlans())) {
      const a = seededRng(3);
      const b = seededRng(3);
      for (let i = 0; i < 200; i++) {
        const record = plan.schema.attributes.map((_, j) => (i + j) % 2);
        const got = createReport(plan, record, { rng: a });
        const expected = encodeReport(plan, perturbRecord(plan, record, b, undefined), createReportId(b));
        expect(got).toEqual(expected);
        expect(got.id[14]).toBe("4");
      }
    }
  });
});
