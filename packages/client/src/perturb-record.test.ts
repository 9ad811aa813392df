import { calmReport, InvalidParameterError, InvalidRecordError } from "@calm-ldp/calm-core";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { perturbRecord } from "./perturb-record.js";
import { testPlans } from "./test-support.js";

describe("perturbRecord (the client path of createReport)", () => {
  it("draws exactly what calm-core's calmReport draws, word for word, on every oracle", () => {
    for (const [name, plan] of Object.entries(testPlans())) {
      const d = plan.schema.attributes.length;
      const ours = seededRng(11);
      const theirs = seededRng(11);
      const records = seededRng(12);
      for (let i = 0; i < 2000; i++) {
        const record = plan.schema.attributes.map((a) => records.nextUint32() % a.labels.length);
        const a = perturbRecord(plan, record, ours, undefined);
        const b = calmReport(plan, record, { rng: theirs });
        expect(a.view, name).toBe(b.view);
        expect(a.report, name).toEqual(b.report);
      }
      // Same number of words consumed: the generators are still in step.
      expect(ours.nextUint32()).toBe(theirs.nextUint32());
      expect(d).toBeGreaterThan(0);
    }
  });

  it("takes an assigned view and refuses records outside the schema like calmReport", () => {
    const plan = testPlans().grr!;
    const rng = seededRng(3);
    expect(perturbRecord(plan, [0, 1, 0, 1, 0, 1], rng, 2).view).toBe(2);
    expect(() => perturbRecord(plan, [0, 1], rng, undefined)).toThrow(InvalidRecordError);
    expect(() => perturbRecord(plan, [0, 1, 2, 0, 0, 0], rng, undefined)).toThrow(
      /value of attribute 2 \(b2\) must be an integer in \[0, 2\) \(got 2\)/,
    );
    expect(() => perturbRecord(plan, [0, 1, 0, 1, 0, 1], rng, plan.m)).toThrow(InvalidParameterError);
    expect(() =>
      perturbRecord({ ...plan, assignment: "assigned" }, [0, 1, 0, 1, 0, 1], rng, undefined),
    ).toThrow(/assigns groups/);
  });
});
