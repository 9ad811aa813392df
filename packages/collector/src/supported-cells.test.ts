import { createOracle } from "@calm-ldp/frequency-oracles";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { supportedCells } from "./supported-cells.js";

describe("supportedCells", () => {
  it("lists exactly the cells the oracle says a report supports, for every oracle kind", () => {
    const rng = seededRng(9);
    for (const name of ["grr", "oue", "sue", "olh"]) {
      for (const domain of [2, 12, 33, 70]) {
        const oracle = createOracle(name, { eps: 1, domain });
        for (let i = 0; i < 50; i++) {
          const report = oracle.perturb(i % domain, rng);
          const expected = Array.from({ length: domain }, (_, x) => x).filter((x) =>
            oracle.supports(report, x),
          );
          expect(supportedCells(oracle, report), `${name} D=${domain}`).toEqual(expected);
        }
      }
    }
  });
});
