import { CalmAggregator, type CalmPlan, planCalm } from "@calm-ldp/calm-core";
import { createSchema } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import type { StoredRound } from "../api.js";
import { unaryOnesFlags } from "./unary-ones.js";
import {
  estimationCounts,
  keptSupportCounts,
  unaryCountRule,
  unaryPq,
  unaryReportCheck,
} from "./unary-report-check.js";

/** One OUE view over two attributes of cardinality 4 (16 cells): d = 2, k = 2, m = 1. */
function plan16(eps: number): CalmPlan {
  const schema = createSchema([
    { name: "a", cardinality: 4 },
    { name: "b", cardinality: 4 },
  ]);
  return planCalm({ schema, n: 10_000, eps, k: 2 }, { oracle: "oue", m: 1 });
}

/** A skewed record law over the 16 cells (cell x has weight x + 1). */
const weights = Array.from({ length: 16 }, (_, x) => (x + 1) / 136);

/** `n` honest reports through the real OUE sampler, as the collector's accepted form (view, bits set). */
function honest(plan: CalmPlan, n: number, seed: number) {
  const rng = seededRng(seed);
  const oracle = new CalmAggregator(plan).views[0]!.oracle;
  const cumulative = weights.map((_, x) => weights.slice(0, x + 1).reduce((a, b) => a + b, 0));
  return Array.from({ length: n }, () => {
    const u = rng.nextUint32() / 2 ** 32;
    const x = cumulative.findIndex((c) => u < c);
    const bits = oracle.perturb(x < 0 ? 15 : x, rng) as Uint32Array;
    const cells: number[] = [];
    for (let c = 0; c < 16; c++) if ((bits[c >>> 5]! >>> (c & 31)) & 1) cells.push(c);
    return { view: 0, cells };
  });
}

/** Per-cell estimates (C(x)/N - q)/(p - q) of the counts. */
function estimates(counts: readonly number[], n: number, p: number, q: number): number[] {
  return counts.map((c) => (c / n - q) / (p - q));
}

function supportOf(reports: readonly { cells: readonly number[] }[]): number[] {
  const counts = new Array<number>(16).fill(0);
  for (const r of reports) for (const c of r.cells) counts[c]!++;
  return counts;
}

describe("per-report count test of unary reports", () => {
  it("drops an honest report with probability <= alpha, exactly, and finds no rejection region for a 4-cell view at 1%", () => {
    for (const eps of [0.5, 1, 2])
      for (const cells of [4, 16, 64, 256]) {
        const { p, q } = unaryPq("oue", eps);
        const rule = unaryCountRule(p, q, cells, 0.01);
        expect(rule.honestDropRate).toBeLessThanOrEqual(0.01);
        expect(rule.low).toBeLessThan(rule.high);
      }
    // 4 cells at eps 1: P(K = 4) = p q^3 = 0.0097 > alpha / 2: nothing is implausible.
    const { p, q } = unaryPq("oue", 1);
    expect(unaryCountRule(p, q, 4, 0.01)).toMatchObject({ low: -1, high: 5, honestDropRate: 0 });
    expect(unaryCountRule(p, q, 16, 0.01)).toMatchObject({ low: 0, high: 10 });
  });

  it("drops honest reports of the real OUE sampler at the computed rate (z < 4)", () => {
    const plan = plan16(1);
    const { p, q } = unaryPq("oue", 1);
    const rule = unaryCountRule(p, q, 16, 0.01);
    const n = 40_000;
    const { dropped } = unaryReportCheck(plan, honest(plan, n, 7), 0.01);
    const sd = Math.sqrt(n * rule.honestDropRate * (1 - rule.honestDropRate));
    expect(Math.abs(dropped.length - n * rule.honestDropRate) / sd).toBeLessThan(4);
    expect(dropped.length / n).toBeLessThanOrEqual(0.01 + (4 * sd) / n);
  });

  it("catches reports setting many target bits (a maximal-gain variant without padding) and keeps typical ones", () => {
    const plan = plan16(1);
    const crafted = Array.from({ length: 100 }, (_, i) => ({
      view: 0,
      cells: Array.from({ length: 10 + (i % 7) }, (_, c) => c),
    }));
    const typical = Array.from({ length: 100 }, () => ({ view: 0, cells: [0, 1, 2, 3, 4] }));
    const { kept, dropped } = unaryReportCheck(plan, [...crafted, ...typical], 0.01);
    expect(dropped).toHaveLength(100);
    expect(kept).toEqual(typical);
  });

  it("keeps the estimate unbiased after dropping; the broken variant (oracle p, q on kept reports) is biased", () => {
    // A large alpha makes the bias of the broken variant visible with 60,000 reports.
    const alpha = 0.3;
    const plan = plan16(1);
    const { p, q } = unaryPq("oue", 1);
    const rule = unaryCountRule(p, q, 16, alpha);
    const { kept } = unaryReportCheck(plan, honest(plan, 60_000, 11), alpha);
    const n = kept.length;
    const support = supportOf(kept);
    const corrected = estimates(keptSupportCounts(plan, [support], [n], alpha)[0]!, n, p, q);
    const broken = estimates(support, n, p, q);
    // Sum over the 16 cells of the estimate - truth, with its standard error from the kept law.
    const sumSd = Math.sqrt(rule.varianceOnes / n) / (rule.p - rule.q);
    const zOf = (est: number[]) => est.reduce((s, f, x) => s + f - weights[x]!, 0) / sumSd;
    expect(Math.abs(zOf(corrected))).toBeLessThan(4);
    expect(Math.abs(zOf(broken))).toBeGreaterThan(6);
  });
});

describe("estimationCounts: the counts every served estimate reads", () => {
  it("re-bases a round the check ran on, and leaves a campaign round with an instantaneous layer (not checked) as stored", () => {
    const plan = plan16(1);
    const stored = {
      reportsPerView: [1000],
      support: [Float64Array.from({ length: 16 }, (_, x) => 300 + x)],
    };
    const round = (campaign?: { instantEps: number }): StoredRound => ({
      id: "r",
      no: 1,
      createdAt: "2026-11-28T00:00:00.000Z",
      plan,
      request: (campaign ? { campaign: { id: "c", role: "round", index: 0, ...campaign } } : {}) as never,
    });
    const rebased = keptSupportCounts(plan, stored.support, stored.reportsPerView, 0.3)[0]!;
    expect(Array.from(estimationCounts(round(), stored, 0.3).support[0]!)).toEqual(rebased);
    expect(rebased).not.toEqual(Array.from(stored.support[0]!));
    expect(estimationCounts(round({ instantEps: 2 }), stored, 0.3)).toBe(stored);
    expect(estimationCounts(round(), stored, undefined)).toBe(stored);
  });
});

describe("round-level unary-ones flag over the kept reports", () => {
  /** 6 OUE pair views of 16 cells (4 attributes of 4 values). */
  const schema = createSchema(Array.from({ length: 4 }, (_, i) => ({ name: `a${i}`, cardinality: 4 })));
  const plan = planCalm({ schema, n: 10_000, eps: 1, k: 2 }, { oracle: "oue", m: 6 });

  /** Per honest round (200 reports per view, after the per-report check at `alpha`), the unary-ones chi-square. */
  function chiSquares(rounds: number, alpha: number, keptLaw: boolean): number[] {
    const rng = seededRng(99);
    const oracles = new CalmAggregator(plan).views.map((v) => v.oracle);
    const out: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const support = plan.views.map(() => new Array<number>(16).fill(0));
      const perView = plan.views.map(() => 0);
      plan.views.forEach((_, v) => {
        for (let u = 0; u < 200; u++) {
          const bits = oracles[v]!.perturb(Math.floor((rng.nextUint32() / 2 ** 32) * 16), rng) as Uint32Array;
          const cells: number[] = [];
          for (let c = 0; c < 16; c++) if ((bits[0]! >>> c) & 1) cells.push(c);
          if (unaryReportCheck(plan, [{ view: v, cells }], alpha).kept.length === 0) continue;
          perView[v]!++;
          for (const c of cells) support[v]![c]!++;
        }
      });
      // A flag rate of ~1 makes the function return the statistic for every round.
      const [flag] = unaryOnesFlags(plan, support, perView, 1 - 1e-9, keptLaw ? alpha : undefined);
      out.push(flag!.chiSquare);
    }
    return out;
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

  it("tests the kept counts' law: chi-square with 6 degrees of freedom; the broken variant (honest law) is off", () => {
    // Kept law: mean chi-square 6 (standard error sqrt(12 / 200) = 0.24 over 200 rounds: |z| < 4 is 6 +- 1).
    for (const alpha of [0.01, 0.3]) expect(Math.abs(mean(chiSquares(200, alpha, true)) - 6)).toBeLessThan(1);
    // Broken: at a 30% drop rate the kept counts' variance is a third of the honest one (and their mean lower),
    // so the statistic is no longer chi-square(6): its mean is off by more than 6 standard errors.
    expect(Math.abs(mean(chiSquares(200, 0.3, false)) - 6)).toBeGreaterThan(1.5);
  });
});
