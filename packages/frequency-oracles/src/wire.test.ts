import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MalformedReportError } from "./errors.js";
import { createOracle, ORACLE_NAMES, oracleEntry } from "./registry.js";
import { REPORT_MAGIC } from "./wire.js";

// Property-based tests of the wire format (fast-check, fixed seed so runs repeat).
const FC = { seed: 20240601, numRuns: 300 };

describe("wire format", () => {
  for (const name of ORACLE_NAMES) {
    const oracle = createOracle(name, { eps: 1.5, domain: oracleEntry(name).fixedDomain ?? 40 });

    it(`${name}: random bytes never crash the parser and are never counted`, () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
          const aggregator = oracle.createAggregator();
          try {
            aggregator.addEncoded(bytes);
          } catch (error) {
            expect(error).toBeInstanceOf(MalformedReportError);
            expect(aggregator.reports).toBe(0);
            return;
          }
          // Accepted only if it is a report the oracle could have produced, byte for byte.
          expect(oracle.encode(oracle.decode(bytes))).toEqual(bytes);
          expect(aggregator.reports).toBe(1);
        }),
        FC,
      );
    });

    it(`${name}: valid envelopes with random payloads are validated`, () => {
      const template = oracle.encode(oracle.perturb(0));
      const header = 7 + oracle.id.length;
      fc.assert(
        fc.property(
          fc.uint8Array({ minLength: template.length - header, maxLength: template.length - header }),
          (payload) => {
            const bytes = template.slice();
            bytes.set(payload, header);
            const aggregator = oracle.createAggregator();
            try {
              aggregator.addEncoded(bytes);
            } catch (error) {
              expect(error).toBeInstanceOf(MalformedReportError);
              expect((error as MalformedReportError).problem).toBe("value");
              expect(aggregator.reports).toBe(0);
              return;
            }
            const report = oracle.decode(bytes);
            expect(oracle.encode(report)).toEqual(bytes);
            expect(aggregator.counts().reduce((s, c) => s + c, 0)).toBeGreaterThanOrEqual(0);
          },
        ),
        FC,
      );
    });

    it(`${name}: every value round-trips`, () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: oracle.domain - 1 }), (value) => {
          const report = oracle.perturb(value);
          const bytes = oracle.encode(report);
          expect(bytes[0]).toBe(REPORT_MAGIC);
          expect(oracle.decode(bytes)).toEqual(report);
        }),
        { ...FC, numRuns: 100 },
      );
    });
  }

  it("is compact: 14 bytes for GRR, 18 for OUE over 40 values and for OLH", () => {
    expect(createOracle("grr", { eps: 1, domain: 40 }).encode(3).length).toBe(14);
    const oue = createOracle("oue", { eps: 1, domain: 40 });
    expect(oue.encode(oue.perturb(3)).length).toBe(18);
    const olh = createOracle("olh", { eps: 1, domain: 40 });
    expect(olh.encode(olh.perturb(3)).length).toBe(18);
  });

  it("names the problem in the message", () => {
    const grr = createOracle("grr", { eps: 1, domain: 4 });
    const bytes = grr.encode(2);
    bytes[bytes.length - 4] = 9;
    expect(() => grr.decode(bytes)).toThrow(/grr\.decode: reported value 9 is not in \[0, 4\)/);
    const olh = createOracle("olh", { eps: 1, domain: 4 });
    expect(() => olh.decode(bytes)).toThrow(/olh\.decode: report is for oracle "grr", not "olh"/);
    expect(() => grr.encode(7 as never)).toThrow(/grr\.encode: reported value 7 is not in \[0, 4\)/);
    expect(() => grr.encode("x" as never)).toThrow(/grr\.toWords: a grr report is an integer/);
  });
});
