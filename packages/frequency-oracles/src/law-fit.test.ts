import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { createGrr } from "./grr.js";
import { chiSquareTail, normalTwoSided } from "./law-fit.js";
import { createOue } from "./oue.js";
import { samplerFit } from "./sampler-fit.js";

describe("the sampler check's p-values", () => {
  it("match published tail probabilities", () => {
    expect(normalTwoSided(1.959963984540054)).toBeCloseTo(0.05, 12);
    expect(normalTwoSided(5) / 5.733031437583878e-7).toBeCloseTo(1, 9);
    expect(normalTwoSided(0)).toBe(1);
    expect(normalTwoSided(Number.NaN)).toBe(0);
    expect(chiSquareTail(3.841458820694124, 1)).toBeCloseTo(0.05, 12);
    expect(chiSquareTail(18.307038053275146, 10)).toBeCloseTo(0.05, 12);
    expect(chiSquareTail(5, 0)).toBe(1);
  });

  it("are calibrated on correct oracles: about 5 % of them fall below 0.05", () => {
    // Ten seeded runs on GRR and OUE (D = 8). Under the null each p-value is uniform (up to
    // the normal and chi-square approximations), so the count below 0.05 is about
    // Binomial(T, 0.05); the tests of one run are nearly independent. |z| < 5 on that count.
    let tests = 0;
    let below = 0;
    for (let seed = 0; seed < 10; seed++) {
      for (const oracle of [createGrr({ eps: 1, domain: 8 }), createOue({ eps: 1, domain: 8 })]) {
        const fit = samplerFit(oracle, { rng: seededRng(seed), relativeP: 0.05, reports: 2000 });
        expect(fit.failures).toEqual([]);
        tests += fit.tests;
        below += fit.results.filter((t) => t.pValue < 0.05).length;
      }
    }
    const z = (below - 0.05 * tests) / Math.sqrt(tests * 0.05 * 0.95);
    expect(Math.abs(z), `${below} of ${tests} below 0.05`).toBeLessThan(5);
  });
});
