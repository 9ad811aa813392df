import { describe, expect, it } from "vitest";
import { coefficientCount, createCoefficientIndex } from "./coefficient-index.js";
import { InvalidParameterError } from "./errors.js";
import { popcount } from "./test-support.js";

function binomial(n: number, k: number): number {
  let value = 1;
  for (let i = 1; i <= k; i++) value = (value * (n - k + i)) / i;
  return Math.round(value);
}

/** Every subset of weight 1..k of d bits, in the documented order: by weight, then colex. */
function bruteForceOrder(d: number, k: number): number[][] {
  const masks: number[] = [];
  for (let mask = 1; mask < 2 ** d; mask++) if (popcount(mask) <= k) masks.push(mask);
  // colex order of sets = numeric order of masks with element i at bit i
  masks.sort((a, b) => popcount(a) - popcount(b) || a - b);
  return masks.map((mask) => {
    const set: number[] = [];
    for (let i = 0; i < d; i++) if ((mask >>> i) & 1) set.push(i);
    return set;
  });
}

describe("coefficientCount", () => {
  it("is sum_{w=1..k} C(d, w)", () => {
    expect(coefficientCount(8, 3)).toBe(8 + 28 + 56);
    expect(coefficientCount(10, 10)).toBe(1023);
    expect(coefficientCount(64, 8)).toBe([1, 2, 3, 4, 5, 6, 7, 8].reduce((s, w) => s + binomial(64, w), 0));
  });
  it("rejects bad d, k and counts above 2^53", () => {
    expect(() => coefficientCount(0, 1)).toThrow(InvalidParameterError);
    expect(() => coefficientCount(8, 9)).toThrow(
      /coefficientCount: k must be an integer in \[1, d = 8\] \(got 9\)/,
    );
    expect(() => coefficientCount(4000, 200)).toThrow(/below 2\^53/);
  });
});

describe("createCoefficientIndex", () => {
  it("ranks every subset to its position in the weight-then-colex order, and unranks back (d <= 10)", () => {
    for (let d = 1; d <= 10; d++) {
      for (let k = 1; k <= d; k++) {
        const index = createCoefficientIndex(d, k);
        const order = bruteForceOrder(d, k);
        expect(index.size).toBe(order.length);
        order.forEach((alpha, position) => {
          expect(index.rank(alpha)).toBe(position);
          expect(index.unrank(position)).toEqual(alpha);
          expect(index.weightOf(position)).toBe(alpha.length);
        });
      }
    }
  });

  it("round-trips at CALM/FT sizes (d = 32 and 64, k = 8) and writes into out", () => {
    for (const d of [32, 64]) {
      const index = createCoefficientIndex(d, 8);
      const out: number[] = [];
      for (const rank of [
        0,
        1,
        d - 1,
        d,
        index.size - 1,
        Math.floor(index.size / 3),
        Math.floor(index.size / 7),
      ]) {
        const alpha = index.unrank(rank, out);
        expect(alpha).toBe(out);
        expect(index.rank(alpha)).toBe(rank);
      }
      expect(index.unrank(index.size - 1)).toEqual([d - 8, d - 7, d - 6, d - 5, d - 4, d - 3, d - 2, d - 1]);
      expect(index.unrank(0)).toEqual([0]);
    }
  });

  it("rejects malformed subsets and ranks", () => {
    const index = createCoefficientIndex(8, 3);
    expect(() => index.rank([])).toThrow(/\|alpha\| must be in \[1, k = 3\]/);
    expect(() => index.rank([0, 1, 2, 3])).toThrow(InvalidParameterError);
    expect(() => index.rank([2, 1])).toThrow(/strictly ascending/);
    expect(() => index.rank([8])).toThrow(/\[0, d = 8\)/);
    expect(() => index.unrank(index.size)).toThrow(/rank must be an integer in \[0, 92\) \(got 92\)/);
    expect(() => index.unrank(-1)).toThrow(InvalidParameterError);
    expect(() => createCoefficientIndex(3, 4)).toThrow(/createCoefficientIndex: k/);
  });
});
