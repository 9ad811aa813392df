import { planCalm } from "@calm-ldp/calm-core";
import { createReport } from "@calm-ldp/client";
import { createSchema } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { RequestRejectedError } from "./errors.js";
import { validateBatch } from "./validate-batch.js";

describe("validateBatch", () => {
  const schema = createSchema([2, 4, 3, 2].map((cardinality, i) => ({ name: `x${i}`, cardinality })));
  const plan = planCalm({ schema, n: 20_000, eps: 1, k: 2 });
  const round = "5b6f0a3e-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
  const rng = seededRng(2);
  const reports = Array.from({ length: 50 }, (_, i) => createReport(plan, [i % 2, i % 4, i % 3, 1], { rng }));

  it("returns id, view and supported cells of each report, in order", () => {
    const accepted = validateBatch(round, plan, { round, reports });
    expect(accepted.map((r) => r.id)).toEqual(reports.map((r) => r.id));
    accepted.forEach((r, i) => {
      expect(r.view).toBe(reports[i]!.view);
      if (reports[i]!.value !== undefined) expect(r.cells).toEqual([reports[i]!.value]);
      else expect(r.cells.every((c) => c >= 0 && c < plan.views[r.view]!.cells)).toBe(true);
    });
  });

  it("refuses the whole batch for one bad report, naming it and the reason", () => {
    const bad = [...reports];
    bad[7] = { ...bad[7]!, view: plan.m };
    expect(() => validateBatch(round, plan, { round, reports: bad })).toThrow(
      /^report 7: decodeReport: view must be/,
    );
    try {
      validateBatch(round, plan, { round, reports: bad });
    } catch (error) {
      expect((error as RequestRejectedError).reason).toBe("unknown-view");
      expect((error as RequestRejectedError).statusCode).toBe(400);
    }
    expect(() => validateBatch(round, plan, { round: "other", reports })).toThrow(RequestRejectedError);
  });
});
