import { describe, expect, it } from "vitest";
import { InvalidParameterError } from "./errors.js";
import { fwht } from "./fwht.js";
import { bruteForceHadamard, maxAbsDiff, testValues } from "./test-support.js";

describe("fwht", () => {
  it("equals the explicit 2^d x 2^d Hadamard matrix for d = 0..10, every scaling", () => {
    for (let d = 0; d <= 10; d++) {
      const size = 2 ** d;
      const x = testValues(100 + d, size);
      const expected = bruteForceHadamard(x);
      // Sums of up to 1024 terms of magnitude <= 0.5: 1e-12 is far above rounding (~1e-14).
      expect(maxAbsDiff(fwht(x.slice()), expected)).toBeLessThan(1e-12);
      const orthonormal = expected.map((v) => v / Math.sqrt(size));
      expect(maxAbsDiff(fwht(x.slice(), { scaling: "orthonormal" }), orthonormal)).toBeLessThan(1e-12);
      const inverse = expected.map((v) => v / size);
      expect(maxAbsDiff(fwht(x.slice(), { scaling: "inverse" }), inverse)).toBeLessThan(1e-12);
    }
  });

  it("covers the blocked and radix-2/radix-4 paths (2^11 .. 2^16) against a plain radix-2 transform", () => {
    const plain = (x: Float64Array) => {
      for (let h = 1; h < x.length; h *= 2) {
        for (let i = 0; i < x.length; i += 2 * h) {
          for (let j = i; j < i + h; j++) {
            const a = x[j]!;
            const b = x[j + h]!;
            x[j] = a + b;
            x[j + h] = a - b;
          }
        }
      }
      return x;
    };
    for (let m = 11; m <= 16; m++) {
      const x = testValues(m, 2 ** m);
      expect(maxAbsDiff(fwht(x.slice()), plain(x.slice()))).toBe(0);
    }
  });

  it("works in place and returns its argument", () => {
    const x = Float64Array.of(1, 2, 3, 4);
    expect(fwht(x)).toBe(x);
    expect(Array.from(x)).toEqual([10, -2, -4, 0]);
  });

  it("is linear", () => {
    const x = testValues(1, 1024);
    const y = testValues(2, 1024);
    const combined = x.map((v, i) => 3 * v - 0.5 * y[i]!);
    const fx = fwht(x.slice());
    const fy = fwht(y.slice());
    const expected = fx.map((v, i) => 3 * v - 0.5 * fy[i]!);
    expect(maxAbsDiff(fwht(combined), expected)).toBeLessThan(1e-10);
  });

  it("is an involution up to scale: H H = D I; orthonormal twice and none-then-inverse give x back", () => {
    for (const m of [0, 1, 5, 12, 15]) {
      const x = testValues(7 + m, 2 ** m);
      const twice = fwht(fwht(x.slice()));
      expect(
        maxAbsDiff(
          twice,
          x.map((v) => v * 2 ** m),
        ),
      ).toBeLessThan(1e-9);
      expect(
        maxAbsDiff(fwht(fwht(x.slice(), { scaling: "orthonormal" }), { scaling: "orthonormal" }), x),
      ).toBeLessThan(1e-12);
      expect(maxAbsDiff(fwht(fwht(x.slice()), { scaling: "inverse" }), x)).toBeLessThan(1e-12);
    }
  });

  it("preserves the Euclidean norm when orthonormal (Parseval)", () => {
    const x = testValues(9, 4096);
    const norm = (v: Float64Array) => Math.sqrt(v.reduce((s, t) => s + t * t, 0));
    expect(norm(fwht(x.slice(), { scaling: "orthonormal" }))).toBeCloseTo(norm(x), 10);
  });

  it("maps a point mass at j to the row of signs (-1)^{|a ∧ j|}", () => {
    const x = new Float64Array(8);
    x[5] = 1; // j = 101
    expect(Array.from(fwht(x))).toEqual([1, -1, 1, -1, -1, 1, -1, 1]);
  });

  it("rejects lengths that are not powers of two and unknown scalings", () => {
    expect(() => fwht(new Float64Array(0))).toThrow(InvalidParameterError);
    expect(() => fwht(new Float64Array(6))).toThrow(/fwht: data.length must be a power of two.*\(got 6\)/);
    expect(() => fwht(new Float64Array(4), { scaling: "unitary" as never })).toThrow(/options.scaling/);
  });
});
