import { createTable, projectTable } from "@calm-ldp/marginal-algebra";
import { popcount32, seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { applyChannel, type ChannelAxis, invertChannel, runEm } from "./em.js";

function grrAxis(cardinality: number, eps: number): ChannelAxis {
  const e = Math.exp(eps);
  return { cardinality, p: e / (e + cardinality - 1), q: 1 / (e + cardinality - 1) };
}

/** The CALM appendix A.2 recursion, literally: T_A for every A ⊆ query by increasing size. */
function inclusionExclusion(observed: Float64Array, cards: number[], axes: ChannelAxis[]): Float64Array {
  const k = cards.length;
  const attributes = cards.map((_, i) => i);
  const full = createTable(attributes, cards, { cells: observed });
  const estimates = new Map<number, Float64Array>();
  const subsets = Array.from({ length: 2 ** k }, (_, m) => m).sort((x, y) => popcount32(x) - popcount32(y));
  for (const mask of subsets) {
    const members = attributes.filter((i) => (mask >>> i) & 1);
    const counts = projectTable(full, members).cells;
    const memberCards = members.map((i) => cards[i]!);
    const out = new Float64Array(counts.length);
    for (let c = 0; c < counts.length; c++) {
      const values = digitsOf(c, memberCards);
      let rest = counts[c]!;
      for (const sub of subsets) {
        if (sub === mask || (sub & mask) !== sub) continue;
        const subMembers = members.filter((i) => (sub >>> i) & 1);
        const subCards = subMembers.map((i) => cards[i]!);
        const subValues = subMembers.map((i) => values[members.indexOf(i)]!);
        let weight = 1;
        for (const i of members) weight *= (sub >>> i) & 1 ? axes[i]!.p - axes[i]!.q : axes[i]!.q;
        rest -= weight * estimates.get(sub)![indexOf(subValues, subCards)]!;
      }
      let scale = 1;
      for (const i of members) scale *= axes[i]!.p - axes[i]!.q;
      out[c] = rest / scale;
    }
    estimates.set(mask, out);
  }
  return estimates.get(2 ** k - 1)!;
}

function digitsOf(index: number, cards: number[]): number[] {
  const out = new Array<number>(cards.length);
  for (let i = cards.length - 1; i >= 0; i--) {
    out[i] = index % cards[i]!;
    index = Math.floor(index / cards[i]!);
  }
  return out;
}
function indexOf(values: number[], cards: number[]): number {
  return values.reduce((s, v, i) => s * cards[i]! + v, 0);
}

function randomDistribution(size: number, seed: number): Float64Array {
  const rng = seededRng(seed);
  const x = new Float64Array(size);
  let total = 0;
  for (let i = 0; i < size; i++) total += x[i] = 0.05 + rng.nextFloat();
  for (let i = 0; i < size; i++) x[i]! /= total;
  return x;
}

/** EM started from the uniform table mixed with 1% (the default start of InpEM). */
const FROM_UNIFORM = { initialization: "uniform", initialMix: 0.01 } as const;

describe("product channel", () => {
  const cards = [2, 3, 4];
  const axes = [grrAxis(2, 0.4), grrAxis(3, 0.7), grrAxis(4, 1.1)];

  it("invertChannel is the CALM appendix's inclusion-exclusion estimate", () => {
    const observed = randomDistribution(24, 1);
    const literal = inclusionExclusion(observed, cards, axes);
    const fast = invertChannel(Float64Array.from(observed), axes);
    for (let c = 0; c < 24; c++) expect(fast[c]).toBeCloseTo(literal[c]!, 10);
  });

  it("applyChannel maps a distribution to the report distribution and inverts invertChannel", () => {
    const x = randomDistribution(24, 2);
    const reported = applyChannel(Float64Array.from(x), axes);
    expect(reported.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 12);
    // one cell by direct enumeration: Pr[y] = sum_v x[v] prod_i (p_i if y_i = v_i else q_i)
    const y = [1, 2, 0];
    let direct = 0;
    for (let v = 0; v < 24; v++) {
      const digits = digitsOf(v, cards);
      let prob = x[v]!;
      for (let i = 0; i < 3; i++) prob *= digits[i] === y[i] ? axes[i]!.p : axes[i]!.q;
      direct += prob;
    }
    expect(reported[indexOf(y, cards)]).toBeCloseTo(direct, 12);
    const back = invertChannel(reported, axes);
    for (let c = 0; c < 24; c++) expect(back[c]).toBeCloseTo(x[c]!, 10);
  });
});

describe("runEm", () => {
  const axes = [grrAxis(2, 1.5), grrAxis(2, 1.5), grrAxis(3, 1.5)];
  const truth = randomDistribution(12, 3);
  const observed = applyChannel(Float64Array.from(truth), axes).map((v) => v * 1e6);

  it("recovers the distribution from exact expected report counts (the MLE) from the uniform prior", () => {
    const { cells, diagnostics } = runEm(observed, axes, {
      ...FROM_UNIFORM,
      tolerance: 1e-12,
      maxIterations: 200_000,
    });
    expect(diagnostics.converged).toBe(true);
    expect(diagnostics.stoppedAtPrior).toBe(false);
    expect(diagnostics.reports).toBeCloseTo(1e6, 6);
    for (let c = 0; c < 12; c++) expect(cells[c]).toBeCloseTo(truth[c]!, 5);
    expect(cells.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 12);
  });

  it("from the inclusion-exclusion start, an interior MLE is reached at once (stoppedAtStart, not at the prior)", () => {
    const { cells, diagnostics } = runEm(observed, axes, {
      tolerance: 1e-5,
      maxIterations: 100,
      initialization: "inclusion-exclusion",
      initialMix: 0,
    });
    expect(diagnostics.iterations).toBe(1);
    expect(diagnostics.stoppedAtStart).toBe(true);
    expect(diagnostics.stoppedAtPrior).toBe(false);
    for (let c = 0; c < 12; c++) expect(cells[c]).toBeCloseTo(truth[c]!, 8);
  });

  it("reports the Table 3 failure: with a tiny per-attribute eps the first update already meets Omega", () => {
    const weak = [grrAxis(2, 0.01), grrAxis(2, 0.01), grrAxis(3, 0.01)];
    const seen = applyChannel(Float64Array.from(truth), weak).map((v) => v * 65536);
    const { cells, diagnostics } = runEm(seen, weak, {
      ...FROM_UNIFORM,
      tolerance: 1e-5,
      maxIterations: 10_000,
    });
    expect(diagnostics.iterations).toBe(1);
    expect(diagnostics.stoppedAtPrior).toBe(true);
    for (let c = 0; c < 12; c++) expect(Math.abs(cells[c]! - 1 / 12)).toBeLessThanOrEqual(1e-5);
  });

  it("reports non-convergence when the iteration cap is reached", () => {
    const { diagnostics } = runEm(observed, axes, { ...FROM_UNIFORM, tolerance: 1e-15, maxIterations: 3 });
    expect(diagnostics.iterations).toBe(3);
    expect(diagnostics.converged).toBe(false);
    expect(diagnostics.stoppedAtStart).toBe(false);
  });

  it("keeps cells outside the support at zero", () => {
    const support = new Uint8Array(12).fill(1);
    support[5] = 0;
    const { cells } = runEm(observed, axes, {
      ...FROM_UNIFORM,
      tolerance: 1e-9,
      maxIterations: 1000,
      support,
    });
    expect(cells[5]).toBe(0);
    expect(cells.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 12);
  });
});
