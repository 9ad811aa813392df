import { describe, expect, it } from "vitest";
import { binomialCoefficient, chooseParameters } from "./choose-parameters.js";
import { expectedViewCells, noiseError } from "./noise-error.js";

const binary = (d: number) => new Array<number>(d).fill(2);

/**
 * The paper quotes its figures to two or three significant digits, sometimes
 * rounded and sometimes truncated (k NE = 0.000768 is printed as 0.00076, SE =
 * 0.0002136 as 0.00021): a figure agrees when it is within one unit of the quoted
 * last digit. l and m must match exactly.
 */
function closeTo(actual: number, quoted: number): void {
  const decimals = quoted.toString().split(".")[1]?.length ?? 0;
  expect(Math.abs(actual - quoted)).toBeLessThan(10 ** -decimals);
}

describe("noise and sampling error (CALM Eq. 7, 8)", () => {
  it("k NE at n = 2^16, d = 8, k = 3, eps = 1 for l = 2..8 matches ../../../docs/algorithms.md#choosing-the-view-size-and-the-number-of-views", () => {
    const quoted = [0.00117, 0.00288, 0.0054, 0.00863, 0.0144, 0.0247, 0.0432];
    quoted.forEach((value, i) => {
      closeTo(3 * noiseError(2 ** 16, binary(8), 1, i + 2), value);
    });
  });

  it("expected view cells: 2^l for binary, the mean product over l-subsets otherwise", () => {
    expect(expectedViewCells(binary(10), 4)).toBeCloseTo(16, 12);
    // c = (2, 3, 4): pairs 6, 8, 12 -> mean 26/3; triple 24.
    expect(expectedViewCells([2, 3, 4], 2)).toBeCloseTo(26 / 3, 12);
    expect(expectedViewCells([2, 3, 4], 3)).toBeCloseTo(24, 12);
    expect(expectedViewCells([2, 3, 4], 1)).toBeCloseTo(3, 12);
  });
});

describe("chooseParameters (Algorithm 1)", () => {
  it("n = 2^16, d = 8, k = 3, eps = 2: candidates l = 3 (m 56) and l = 4 (m 14); chooses l = 4, m = 14", () => {
    const choice = chooseParameters({ n: 2 ** 16, cardinalities: binary(8), eps: 2, k: 3 });
    expect([choice.l, choice.m]).toEqual([4, 14]);
    expect(choice.candidates.map((c) => [c.l, c.m])).toEqual([
      [3, 56],
      [4, 14],
    ]);
    closeTo(choice.candidates[0]!.kNE, 0.00032);
    closeTo(choice.candidates[0]!.SE, 0.00085);
    closeTo(choice.candidates[1]!.kNE, 0.00076);
    closeTo(choice.candidates[1]!.SE, 0.00021);
  });

  it("n = 2^16, d = 8, k = 3: l = 2, m = 28 for every eps <= 1.4; eps = 1.6 gives l = 3, m = 56", () => {
    for (const eps of [0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4]) {
      const choice = chooseParameters({ n: 2 ** 16, cardinalities: binary(8), eps, k: 3 });
      expect([eps, choice.l, choice.m]).toEqual([eps, 2, 28]);
    }
    const choice = chooseParameters({ n: 2 ** 16, cardinalities: binary(8), eps: 1.6, k: 3 });
    expect([choice.l, choice.m]).toEqual([3, 56]);
  });

  it("eps = 0.2 gives l = 2 with m = 28, 28, 65, 65, 120, 262 across the paper's settings", () => {
    const settings: Array<[number, number, number]> = [
      [8, 2 ** 16, 28],
      [8, 2 ** 18, 28],
      [16, 2 ** 16, 65],
      [32, 2 ** 16, 65],
      [16, 2 ** 18, 120],
      [32, 2 ** 18, 262],
    ];
    for (const [d, n, m] of settings) {
      const choice = chooseParameters({ n, cardinalities: binary(d), eps: 0.2, k: 3 });
      expect([d, n, choice.l, choice.m]).toEqual([d, n, 2, m]);
    }
  });

  it("rejects bad parameters with named errors", () => {
    const base = { n: 1000, cardinalities: binary(8), eps: 1, k: 3 };
    expect(() => chooseParameters({ ...base, eps: 0 })).toThrow(/eps must be a finite number > 0 \(got 0\)/);
    expect(() => chooseParameters({ ...base, k: 9 })).toThrow(
      /k must be an integer in \[1, d = 8\] \(got 9\)/,
    );
    expect(() => chooseParameters({ ...base, theta: -1 })).toThrow(/theta must be a finite number > 0/);
    expect(() => chooseParameters({ ...base, k: 1, cardinalities: [2, 1] })).toThrow(
      /every cardinality must be an integer >= 2 \(got 1\)/,
    );
  });

  it("binomialCoefficient is exact on small values", () => {
    expect(binomialCoefficient(32, 8)).toBe(10_518_300);
    expect(binomialCoefficient(8, 3)).toBe(56);
    expect(binomialCoefficient(5, 7)).toBe(0);
  });
});
