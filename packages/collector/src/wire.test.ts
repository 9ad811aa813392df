import { CalmAggregator, type CalmPlan, calmReport } from "@calm-ldp/calm-core";
import {
  createReport,
  encodeReport,
  WireFormatError,
  type WireProblem,
  type WireReport,
} from "@calm-ldp/client";
import { wireKindPlans } from "@calm-ldp/client/testing";
import { seededRng } from "@calm-ldp/random";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeReport } from "./decode-report.js";

const ID = "0f8fad5b-d9cb-469f-a165-70867728950e";

function problemOf(plan: CalmPlan, wire: unknown): WireProblem | "accepted" {
  try {
    decodeReport(plan, wire as WireReport);
    return "accepted";
  } catch (error) {
    if (error instanceof WireFormatError) return error.problem;
    throw error;
  }
}

describe("wire format", () => {
  it("round-trips every report of every oracle, and calm-core's aggregator counts the decoded report", () => {
    for (const [name, plan] of Object.entries(wireKindPlans())) {
      const rng = seededRng(21);
      const aggregator = new CalmAggregator(plan);
      for (let i = 0; i < 500; i++) {
        const record = plan.schema.attributes.map((a) => rng.nextUint32() % a.labels.length);
        const report = calmReport(plan, record, { rng });
        const wire = encodeReport(plan, report, ID);
        const kind = plan.views[report.view]!.oracle === "grr" ? "value" : "bits";
        expect(Object.keys(wire).sort(), name).toEqual(["id", kind, "view"].sort());
        const back = decodeReport(plan, JSON.parse(JSON.stringify(wire)));
        expect(back, name).toEqual(report);
        aggregator.add(back);
      }
      expect(aggregator.reports).toBe(500);
    }
  });

  it("writes unary bits little-endian: bit x is bit x & 7 of byte x >> 3", () => {
    const plan = wireKindPlans().ternary!; // 27 cells: 4 bytes, 5 padding bits
    const words = new Uint32Array([(1 << 0) | (1 << 9) | (1 << 26)]);
    const wire = encodeReport(plan, { view: 0, report: words }, ID);
    expect(wire.bits).toBe(Buffer.from([0b1, 0b10, 0, 0b100]).toString("base64"));
    expect(decodeReport(plan, wire).report).toEqual(words);
    // Bit 27 is padding: refused on both sides.
    expect(() => encodeReport(plan, { view: 0, report: new Uint32Array([1 << 27]) }, ID)).toThrow(
      /bit 27 is set/,
    );
    const padded = { id: ID, view: 0, bits: Buffer.from([0, 0, 0, 0b1000]).toString("base64") };
    expect(problemOf(plan, padded)).toBe("bits");
  });

  it("refuses each malformed report with the right problem", () => {
    const { grr, oue } = wireKindPlans() as Record<string, CalmPlan>;
    const bits = encodeReport(oue!, calmReport(oue!, [0, 1, 0, 1, 0, 1], { rng: seededRng(1), view: 0 }), ID)
      .bits!;
    const cases: [CalmPlan, unknown, WireProblem][] = [
      [grr!, null, "kind"],
      [grr!, [1], "kind"],
      [grr!, { id: ID, view: 0, value: 1, extra: 1 }, "kind"],
      [grr!, { id: ID.toUpperCase(), view: 0, value: 1 }, "id"],
      [grr!, { id: 7, view: 0, value: 1 }, "id"],
      [grr!, { view: 0, value: 1 }, "id"],
      [grr!, { id: ID, view: grr!.m, value: 1 }, "view"],
      [grr!, { id: ID, view: -1, value: 1 }, "view"],
      [grr!, { id: ID, view: 0.5, value: 1 }, "view"],
      [grr!, { id: ID, view: "0", value: 1 }, "view"],
      [grr!, { id: ID, view: 0, value: 4 }, "value"],
      [grr!, { id: ID, view: 0, value: -1 }, "value"],
      [grr!, { id: ID, view: 0, value: 1.5 }, "value"],
      [grr!, { id: ID, view: 0, value: "1" }, "value"],
      [grr!, { id: ID, view: 0 }, "kind"],
      [grr!, { id: ID, view: 0, bits: "AA==" }, "kind"],
      [grr!, { id: ID, view: 0, value: 1, bits: "AA==" }, "kind"],
      [oue!, { id: ID, view: 0, value: 1 }, "kind"],
      [oue!, { id: ID, view: 0, bits: 5 }, "kind"],
      [oue!, { id: ID, view: 0, bits: `${bits}AAAA` }, "bits"],
      [oue!, { id: ID, view: 0, bits: bits.slice(0, -4) }, "bits"],
      [oue!, { id: ID, view: 0, bits: bits.replace(/[A-Za-z0-9+/]/, "-") }, "bits"],
    ];
    for (const [plan, wire, problem] of cases)
      expect(problemOf(plan, wire), JSON.stringify(wire)).toBe(problem);
    expect(problemOf(grr!, { id: ID, view: 0, value: 3 })).toBe("accepted");
    expect(() => encodeReport(grr!, { view: 0, report: 1 }, "not-an-id")).toThrow(WireFormatError);
    expect(() => encodeReport(grr!, { view: 0, report: 9 }, ID)).toThrow(/integer in \[0, 4\)/);
    expect(() => encodeReport(oue!, { view: 0, report: new Uint32Array(3) }, ID)).toThrow(/Uint32Array of 1/);
  });

  it("property: a mutated report is either refused or decodes to a report the aggregator accepts", () => {
    const plans = wireKindPlans();
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        fc.integer({ min: -3, max: 40 }),
        fc.double(),
        fc.string({ maxLength: 12 }),
        fc.constant(null),
        fc.array(tie("value"), { maxLength: 3 }),
      ),
    })).value;
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(plans)),
        fc.constantFrom("id", "view", "value", "bits", "extra"),
        json,
        fc.boolean(),
        (name, field, replacement, remove) => {
          const plan = plans[name]!;
          const rng = seededRng(5);
          const wire = createReport(plan, [0, 1, 0, 1, 0, 1].slice(0, plan.schema.attributes.length), {
            rng,
            id: ID,
          }) as unknown as Record<string, unknown>;
          if (remove) delete wire[field];
          else wire[field] = replacement;
          const aggregator = new CalmAggregator(plan);
          let report: ReturnType<typeof decodeReport> | undefined;
          try {
            report = decodeReport(plan, wire as unknown as WireReport);
          } catch (error) {
            expect(error).toBeInstanceOf(WireFormatError);
          }
          if (report) aggregator.add(report); // must not throw: the decoder is at least as strict
        },
      ),
      { numRuns: 1000 },
    );
  });
  it("estimates every view's marginal without bias through the wire (GRR and OUE plans)", () => {
    // 30,000 users all holding the record r; each view's estimated cell of r's
    // projection must be near 1. Tolerance: 5 standard deviations of the oracle's
    // estimate (variance from the oracle's exact formula with f = 1), so a correct
    // implementation fails with probability < 1e-6 per view.
    for (const name of ["grr", "oue"]) {
      const plan = wireKindPlans()[name]!;
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
