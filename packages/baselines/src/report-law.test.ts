import { recordAt } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import type { BaselineProtocol, FullDomainPlan, GroupPlan } from "./api.js";
import { createInpPs } from "./protocols/full-domain.js";
import { createMargPs } from "./protocols/group.js";
import { checkReportLaw, contractSchema, contractStore } from "./testing/index.js";

// The report-law check of the method contract catches deliberately broken clients
// (the sound methods pass it in contract.test.ts, where every registered method runs the contract).
const schema = contractSchema();
const store = contractStore(seededRng(21), 600, schema);
const parameters = { schema, n: store.size, eps: 2, k: 2 };
const cards = schema.attributes.map((a) => a.labels.length);
const records = [cards.map(() => 0), cards.map((c) => c - 1), Array.from(recordAt(store, 0))];

describe("the method contract's report-law check", () => {
  it("catches InpPS sending the last full-domain index in the clear", () => {
    const sound = createInpPs();
    const plan = sound.plan(parameters);
    const law = sound.reportLaw!(plan);
    const last = law.input(0, records[1]!);
    const broken: BaselineProtocol<FullDomainPlan, unknown> = {
      ...sound,
      report: (p, record, rng) => (law.input(0, record) === last ? last : sound.report(p, record, rng)),
    };
    const check = checkReportLaw(broken, plan, law as never, records, 2000, seededRng(5));
    expect(check.failures.length).toBeGreaterThan(0);
    expect(check.failures.join("\n")).toMatch(/record 1, part 0: outputs of input/);
    expect(checkReportLaw(sound, plan, law as never, records, 2000, seededRng(5)).failures).toEqual([]);
  });

  it("catches MargPS choosing its group from the record", () => {
    const sound = createMargPs();
    const plan = sound.plan(parameters);
    const law = sound.reportLaw!(plan);
    const broken: BaselineProtocol<GroupPlan, unknown> = {
      ...sound,
      // The group should be uniform whatever the record: here record 0's first value picks group 0 more often.
      report: (p, record, rng) => {
        let report = sound.report(p, record, rng);
        if (record[0] === 0 && report.group !== 0) report = sound.report(p, record, rng);
        return report;
      },
    };
    const check = checkReportLaw(broken, plan, law as never, records, 2000, seededRng(6));
    expect(check.failures.join("\n")).toMatch(/record 0: parts/);
  });
});
