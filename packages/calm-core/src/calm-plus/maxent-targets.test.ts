import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { interactionTransform } from "../interaction-basis.js";
import { maxentTargets } from "./maxent-targets.js";
import { coefficientKeys, type Pooled } from "./pooled.js";

const cards = [2, 3, 2];

/** A table over attributes 0, 1, 2: pair log-potentials, plus a 3-way one of size `threeWay`. */
function table(threeWay: number): Float64Array {
  const rng = seededRng(5);
  const theta = () => Array.from({ length: 12 }, () => rng.nextFloat() - 0.5);
  const [t01, t12, t02, t012] = [theta(), theta(), theta(), theta()];
  const cells = new Float64Array(12);
  let total = 0;
  for (let x = 0; x < 2; x++)
    for (let y = 0; y < 3; y++)
      for (let z = 0; z < 2; z++) {
        const u = (x * 3 + y) * 2 + z;
        cells[u] = Math.exp(t01[x * 3 + y]! + t12[y * 2 + z]! + t02[x * 2 + z]! + threeWay * t012[u]!);
        total += cells[u]!;
      }
  return cells.map((c) => c / total);
}

/** The pooled map of one view over {0, 1, 2} holding `cells` exactly (value = scale * coefficient). */
function pooledOf(cells: Float64Array): { pooled: Map<string, Pooled>; coefficients: Float64Array } {
  const pooled = new Map<string, Pooled>();
  const { keys, scales } = coefficientKeys([0, 1, 2], cards, pooled);
  const coefficients = Float64Array.from(cells);
  interactionTransform(coefficients, cards, false);
  for (let u = 1; u < 12; u++) keys[u]!.value = scales[u]! * coefficients[u]!;
  return { pooled, coefficients };
}

/** The largest gap between the targets and the table's own 3-way coefficients. */
function gap(cells: Float64Array): number {
  const { pooled, coefficients } = pooledOf(cells);
  const targets = maxentTargets("0,1,2,", pooled, cards)!;
  expect(targets.size).toBe(2); // (2 - 1) (3 - 1) (2 - 1) coefficients supported on all of T
  let largest = 0;
  for (let j = 1; j < 3; j++) {
    const u = (1 * 3 + j) * 2 + 1;
    largest = Math.max(largest, Math.abs(targets.get(`0:1,1:${j},2:1,`)! - coefficients[u]!));
  }
  return largest;
}

describe("maxentTargets", () => {
  it("returns a table's own 3-way coefficients when it has no 3-way interaction", () => {
    // Maximum entropy given the pair marginals is the pairwise log-linear model itself;
    // the IPF stops at margins within 1e-10, so the coefficients agree to ~1e-9.
    expect(gap(table(0))).toBeLessThan(1e-8);
  });

  it("differs from them when the table has a 3-way interaction (the check can fail)", () => {
    expect(gap(table(2))).toBeGreaterThan(1e-3);
  });

  it("gives no targets when a lower-order coefficient was never pooled", () => {
    const { pooled } = pooledOf(table(0));
    pooled.delete("0:1,1:1,");
    expect(maxentTargets("0,1,2,", pooled, cards)).toBeUndefined();
  });
});
