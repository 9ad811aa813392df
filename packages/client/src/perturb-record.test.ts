import { InvalidParameterError, InvalidRecordError } from "@calm-ldp/calm-core";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { perturbRecord } from "./perturb-record.js";
import { wireKindPlans } from "./testing.js";

describe("perturbRecord (the client path of createReport)", () => {
  it("takes an assigned view and refuses records outside the schema like calmReport", () => {
    const plan = wireKindPlans().grr!;
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
