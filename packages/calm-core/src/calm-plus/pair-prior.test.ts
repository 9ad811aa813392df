import { describe, expect, it } from "vitest";
import { interactionTransform } from "../interaction-basis.js";
import { priorPair } from "./pair-prior.js";
import type { Pooled } from "./pooled.js";

/** The pooled one-way entries "a:j," of a marginal p (its Helmert coefficients 1..c-1). */
function oneWays(attribute: number, p: readonly number[], pooled: Map<string, Pooled>): void {
  const coefficients = Float64Array.from(p);
  interactionTransform(coefficients, [p.length], false);
  for (let j = 1; j < p.length; j++) {
    const key = `${attribute}:${j},`;
    const value = coefficients[j]!;
    pooled.set(key, {
      order: 1,
      block: `${attribute},`,
      key,
      weighted: 0,
      precision: 1,
      value,
      factor: 1,
      parts: [],
    });
  }
}

describe("priorPair", () => {
  const pa = [0.5, 0.3, 0.2];
  const pb = [0.7, 0.3];
  const pooled = new Map<string, Pooled>();
  oneWays(0, pa, pooled);
  oneWays(1, pb, pooled);

  it("is the product of the shrunk one-way marginals when the pairs' centre is 0", () => {
    const table = priorPair(0, 1, 3, 2, pooled, 0);
    expect(table.attributes).toEqual([0, 1]);
    for (let a = 0; a < 3; a++)
      for (let b = 0; b < 2; b++) expect(table.cells[a * 2 + b]).toBeCloseTo(pa[a]! * pb[b]!, 12);
  });

  it("adds the centre to every interaction coefficient and keeps the one-way marginals", () => {
    const center = 0.02;
    const table = priorPair(0, 1, 3, 2, pooled, center);
    const coefficients = Float64Array.from(table.cells);
    interactionTransform(coefficients, [3, 2], false);
    // Coefficient (j_a, j_b) with both non-zero: beta_{a,j_a} beta_{b,j_b} + centre (no cell clipped here).
    const one = (key: string) => pooled.get(key)!.value;
    expect(coefficients[1 * 2 + 1]).toBeCloseTo(one("0:1,") * one("1:1,") + center, 12);
    expect(coefficients[2 * 2 + 1]).toBeCloseTo(one("0:2,") * one("1:1,") + center, 12);
    for (let a = 0; a < 3; a++) expect(table.cells[a * 2]! + table.cells[a * 2 + 1]!).toBeCloseTo(pa[a]!, 12);
    for (let b = 0; b < 2; b++)
      expect(table.cells[b]! + table.cells[2 + b]! + table.cells[4 + b]!).toBeCloseTo(pb[b]!, 12);
  });

  it("clips negative cells and renormalises when the centre is large", () => {
    const table = priorPair(0, 1, 3, 2, pooled, 0.5);
    let total = 0;
    for (const x of table.cells) {
      expect(x).toBeGreaterThanOrEqual(0);
      total += x;
    }
    expect(total).toBeCloseTo(1, 12);
  });
});
