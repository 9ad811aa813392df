import { seededRng } from "@calm-ldp/random";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { NonNegativityMethod } from "./api.js";
import { DEFAULT_NON_NEGATIVITY, makeNonNegative } from "./non-negativity.js";
import { normCut } from "./norm-cut.js";
import { normSub } from "./norm-sub.js";
import { ripple } from "./ripple.js";
import { createTable, tableTotal } from "./table.js";
import { gaussian, randomDistribution } from "./test-support.js";

const METHODS: NonNegativityMethod[] = ["ripple", "norm-sub", "norm-cut"];

describe("non-negativity (../../../docs/algorithms.md#non-negativity)", () => {
  it("every method gives a non-negative table with the same total (property, noisy tables)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 2, max: 4 }), { minLength: 1, maxLength: 4 }),
        fc.integer(),
        fc.double({ min: 0.001, max: 0.3, noNaN: true }),
        (cards, seed, sigma) => {
          const rng = seededRng(seed >>> 0);
          const table = randomDistribution(
            rng,
            cards.map((_, i) => i),
            cards,
          );
          for (let u = 0; u < table.cells.length; u++) table.cells[u] += sigma * gaussian(rng);
          const total = tableTotal(table);
          fc.pre(total > 0.05);
          for (const method of METHODS) {
            const out = makeNonNegative(table, { method });
            expect(Math.abs(tableTotal(out) - total)).toBeLessThan(1e-12);
            for (const x of out.cells) expect(x).toBeGreaterThanOrEqual(0);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("leaves a non-negative table unchanged", () => {
    const table = randomDistribution(seededRng(4), [0, 1], [3, 3]);
    for (const method of METHODS) expect(makeNonNegative(table, { method }).cells).toEqual(table.cells);
  });

  it("norm-sub subtracts one delta and clips (hand-checked)", () => {
    // total 1; delta with (0.6 - d) + (0.5 - d) = 1 gives d = 0.05; 0.0 and -0.1 clip to 0.
    const out = normSub(createTable([0], [4], { cells: [0.6, 0.5, 0.0, -0.1] }));
    expect(Array.from(out.cells).map((x) => +x.toFixed(12))).toEqual([0.55, 0.45, 0, 0]);
    // Here delta = (0.7 + 0.3 + 0.2 - 1) / 3 = 0.0667 < 0.2, so three cells stay positive.
    const three = normSub(createTable([0], [4], { cells: [0.7, 0.3, 0.2, -0.2] }));
    expect(three.cells[2]).toBeCloseTo(0.2 - 0.2 / 3, 12);
  });

  it("norm-cut removes the negative mass from the smallest positive cells upward (hand-checked)", () => {
    // negative mass 0.25: the 0.1 cell goes to 0, then 0.15 comes off the 0.2 cell.
    const out = normCut(createTable([0], [5], { cells: [0.6, 0.35, 0.2, 0.1, -0.25] }));
    expect(Array.from(out.cells).map((x) => +x.toFixed(12))).toEqual([0.6, 0.35, 0.05, 0, 0]);
  });

  it("ripple takes a negative cell's mass evenly from its neighbours (hand-checked)", () => {
    // 2 x 2 table; cell (0,0) = -0.2 has neighbours (0,1) and (1,0), each losing 0.1.
    const out = ripple(createTable([0, 1], [2, 2], { cells: [-0.2, 0.4, 0.3, 0.5] }));
    expect(Array.from(out.cells).map((x) => +x.toFixed(12))).toEqual([0, 0.3, 0.2, 0.5]);
    // A neighbour that goes negative ripples on: (0,1) = 0.05 - 0.1 -> -0.05 spreads to (0,0) and (1,1).
    const again = ripple(createTable([0, 1], [2, 2], { cells: [-0.2, 0.05, 0.6, 0.55] }));
    expect(Array.from(again.cells).every((x) => x >= 0)).toBe(true);
    expect(tableTotal(again)).toBeCloseTo(1, 14);
    // A 1-D table: every other value is a neighbour.
    const line = ripple(createTable([0], [4], { cells: [0.5, 0.4, 0.4, -0.3] }));
    expect(Array.from(line.cells).map((x) => +x.toFixed(12))).toEqual([0.4, 0.3, 0.3, 0]);
  });

  it("rejects a negative total and an unknown method", () => {
    const bad = createTable([0], [2], { cells: [0.25, -0.5] });
    for (const method of METHODS) {
      expect(() => makeNonNegative(bad, { method })).toThrow(/total must be >= 0 .*\(got -0\.25\)/);
    }
    expect(() => makeNonNegative(bad, { method: "clip" as NonNegativityMethod })).toThrow(
      /method must be one of/,
    );
    expect(METHODS).toContain(DEFAULT_NON_NEGATIVITY);
  });
});
