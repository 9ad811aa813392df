import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { exactWorstLogRatio } from "./exact-privacy.js";
import { createGrr } from "./grr.js";
import { instantaneousLayer } from "./instantaneous.js";
import { createOue } from "./oue.js";
import { createSue } from "./sue.js";

/** Tolerance of the seeded frequency checks: |z| <= 4.5 (a false alarm about 1 in 150,000 per check). */
const Z = 4.5;

describe("instantaneous layer", () => {
  it("GRR: the composed probabilities equal the sum over the permanent response, and one report is <= min(eps1, eps2)", () => {
    for (const [eps1, eps2, domain] of [
      [1, 2, 4],
      [2, 0.5, 7],
      [0.3, 0.3, 2],
    ] as const) {
      const oracle = createGrr({ eps: eps1, domain });
      const layer = instantaneousLayer(oracle, eps2);
      const second = createGrr({ eps: eps2, domain });
      // Pr[y2 | x] = sum over y1 of Pr1[y1 | x] Pr2[y2 | y1], by enumeration (x = 0).
      const law = new Float64Array(domain);
      for (let y1 = 0; y1 < domain; y1++) {
        const first = y1 === 0 ? oracle.p : oracle.q;
        for (let y2 = 0; y2 < domain; y2++) law[y2]! += first * (y2 === y1 ? second.p : second.q);
      }
      expect(layer.p).toBeCloseTo(law[0]!, 14);
      for (let y2 = 1; y2 < domain; y2++) expect(layer.q).toBeCloseTo(law[y2]!, 14);
      const worst = exactWorstLogRatio({ ...oracle, privacyLaw: () => layer.composedLaw() });
      expect(worst).toBeLessThanOrEqual(Math.min(eps1, eps2) + 1e-12);
      expect(worst).toBeCloseTo(Math.log(layer.p / layer.q), 12);
    }
  });

  it("unary (OUE, SUE): the composed bit probabilities are p1 p2 + (1-p1) q2 and q1 p2 + (1-q1) q2, and one report is <= eps1", () => {
    for (const oracle of [createOue({ eps: 1, domain: 6 }), createSue({ eps: 2, domain: 5 })]) {
      const layer = instantaneousLayer(oracle, 1.5);
      expect(layer.p).toBeCloseTo(oracle.p * layer.p2 + (1 - oracle.p) * layer.q2, 15);
      expect(layer.q).toBeCloseTo(oracle.q * layer.p2 + (1 - oracle.q) * layer.q2, 15);
      const worst = exactWorstLogRatio({ ...oracle, privacyLaw: () => layer.composedLaw() });
      expect(worst).toBeLessThanOrEqual(oracle.eps + 1e-12);
    }
  });

  it("the sampler follows the composed law (seeded, 200,000 reports per oracle, |z| <= 4.5)", () => {
    const rng = seededRng(15);
    const draws = 200_000;
    for (const oracle of [createGrr({ eps: 1, domain: 5 }), createOue({ eps: 1, domain: 5 })]) {
      const layer = instantaneousLayer(oracle, 0.7);
      const supports = new Float64Array(oracle.domain);
      const value = 2;
      for (let i = 0; i < draws; i++) {
        const report = layer.perturb(oracle.perturb(value, rng) as number | Uint32Array, rng);
        for (let x = 0; x < oracle.domain; x++) {
          const hit = typeof report === "number" ? report === x : ((report[x >>> 5]! >>> (x & 31)) & 1) === 1;
          if (hit) supports[x]! += 1;
        }
      }
      for (let x = 0; x < oracle.domain; x++) {
        const expected = x === value ? layer.p : layer.q;
        const z = (supports[x]! / draws - expected) / Math.sqrt((expected * (1 - expected)) / draws);
        expect(Math.abs(z)).toBeLessThanOrEqual(Z);
      }
    }
  });

  it("refuses a bad eps, another oracle, or a response of the wrong shape", () => {
    const grr = createGrr({ eps: 1, domain: 4 });
    expect(() => instantaneousLayer(grr, -1)).toThrow(/eps/);
    expect(() => instantaneousLayer(grr, 1).perturb(new Uint32Array(1), seededRng(1))).toThrow(/number/);
    const oue = createOue({ eps: 1, domain: 40 });
    expect(() => instantaneousLayer(oue, 1).perturb(new Uint32Array(1), seededRng(1))).toThrow(/2 words/);
  });
});
