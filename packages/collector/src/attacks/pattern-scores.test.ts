import { planCalm } from "@calm-ldp/calm-core";
import { createReport } from "@calm-ldp/client";
import { createSchema } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { decodeReport } from "../decode-report.js";
import { unaryPq } from "./craft.js";
import fixture from "./pattern-scores.fixture.json";
import {
  type PatternScores,
  patternBias,
  patternEstimate,
  patternWorstShift,
  reportPattern,
  unaryPatternLaw,
} from "./pattern-scores.js";

// The probe with OUE views: d = 8 binary attributes, P(1) = 0.3, all 28 pair views.
const schema = createSchema(Array.from({ length: 8 }, (_, i) => ({ name: `a${i}`, cardinality: 2 })));
const planFor = (eps: number) => planCalm({ schema, n: 2 ** 17, eps, k: 2 }, { oracle: "oue" });
const target = { attributes: [0, 1], values: [1, 1] };
const fT = 0.09;
const floorFactor = (eps: number) => Math.exp(eps) / (Math.exp(eps) - 1);
const ratio = (shift: number, eps: number) => (shift - fT) / (floorFactor(eps) - fT);
const capped = (eps: 1 | 0.5): PatternScores => fixture.eps[eps === 1 ? "1.0" : "0.5"].scores;
/** calm-core's raw target-view estimate as pattern scores: m (y_3 - q)/(p - q) in the target's view, 0 elsewhere. */
function rawTargetView(eps: number): PatternScores {
  const { p, q } = unaryPq("oue", eps);
  return planFor(eps).views.map((view, v) =>
    Array.from({ length: 16 }, (_, y) =>
      v === 0 && view.attributes.join() === "0,1" ? (28 * ((y & 1) - q)) / (p - q) : 0,
    ),
  );
}

describe("pattern scores of unary views", () => {
  it("the pattern law sums to 1 and sets bit x with p, every other bit with q (exact enumeration)", () => {
    const law = unaryPatternLaw(0.5, 0.2, 4, 2);
    expect(law.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    for (let c = 0; c < 4; c++) {
      const set = law.reduce((s, pr, y) => s + ((y >>> (3 - c)) & 1 ? pr : 0), 0);
      expect(set).toBeCloseTo(c === 2 ? 0.5 : 0.2, 12);
    }
    expect(reportPattern(Uint32Array.of(0b1001), 4)).toBe(0b1001);
    expect(reportPattern(Uint32Array.of(0b0001), 4)).toBe(0b1000);
  });

  for (const eps of [1, 0.5] as const) {
    it(`eps ${eps}: the exported estimator is unbiased for all 256 records and caps maximal-gain fakes at 2 x floor`, () => {
      const plan = planFor(eps);
      expect(plan.views.map((v) => v.attributes.join())).toEqual(
        Array.from({ length: 8 }, (_, i) =>
          Array.from({ length: 8 - i - 1 }, (_, j) => `${i},${i + j + 1}`),
        ).flat(),
      );
      const pq = unaryPq("oue", eps);
      expect(patternBias(plan, capped(eps), target, pq)).toBeLessThan(1e-6);
      expect(ratio(patternWorstShift(capped(eps)), eps)).toBeLessThanOrEqual(2 + 1e-6);
      // calm-core's own target-view estimate is unbiased too, but its maximal-gain fakes get (2e/(e-1) - f_T)/(e/(e-1) - f_T) > 2.
      expect(patternBias(plan, rawTargetView(eps), target, pq)).toBeLessThan(1e-9);
      const e = Math.exp(eps);
      expect(ratio(patternWorstShift(rawTargetView(eps)), eps)).toBeCloseTo(ratio((2 * e) / (e - 1), eps), 9);
    });
  }

  it("catches broken variants: scores of another eps, one score moved", () => {
    const plan = planFor(0.5);
    const pq = unaryPq("oue", 0.5);
    expect(patternBias(plan, capped(1), target, pq)).toBeGreaterThan(0.01);
    const moved = capped(0.5).map((row, v) => row.map((s, y) => (v === 3 && y === 5 ? s + 1 : s)));
    expect(patternBias(plan, moved, target, pq)).toBeGreaterThan(1e-3);
  });

  it("on the real sampler, estimates f_T within |z| < 4, and a biased variant lands beyond it", () => {
    // Seeded: 40,000 honest users through createReport and the collector's decodeReport (eps 1).
    const eps = 1;
    const plan = planFor(eps);
    const rng = seededRng(32);
    const histograms = plan.views.map(() => new Float64Array(16));
    const n = 40_000;
    for (let u = 0; u < n; u++) {
      const row = Array.from({ length: 8 }, () => (rng.nextUint32() / 2 ** 32 < 0.3 ? 1 : 0));
      const report = decodeReport(plan, createReport(plan, row, { rng }));
      histograms[report.view]![reportPattern(report.report as Uint32Array, 4)]! += 1;
    }
    // The estimate (1/m) sum_v mean_v has variance (1/(m n)) sum_v Var_v with N_v ~ n/m reports per view,
    // Var_v the score's variance in view v under the iid law (exact, by enumeration).
    const pq = unaryPq("oue", eps);
    const cellLaw = [0.49, 0.21, 0.21, 0.09];
    const scores = capped(eps);
    let variance = 0;
    for (const row of scores) {
      const law = cellLaw.map((f, x) => unaryPatternLaw(pq.p, pq.q, 4, x).map((pr) => f * pr));
      let m1 = 0;
      let m2 = 0;
      for (const byCell of law)
        byCell.forEach((pr, y) => {
          m1 += pr * row[y]!;
          m2 += pr * row[y]! ** 2;
        });
      variance += (m2 - m1 ** 2) / scores.length;
    }
    const se = Math.sqrt(variance / n);
    const z = (patternEstimate(scores, histograms) - fT) / se;
    expect(Math.abs(z)).toBeLessThan(4);
    const biased = scores.map((row) => row.map((s) => s + 6 * se));
    expect(Math.abs((patternEstimate(biased, histograms) - fT) / se)).toBeGreaterThan(4);
  });
});
