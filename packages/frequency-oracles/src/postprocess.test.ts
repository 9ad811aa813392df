import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clipAndRenormalise } from "./clip.js";
import { InvalidParameterError } from "./errors.js";
import { normSub } from "./norm-sub.js";
import { projectOntoSimplex } from "./simplex.js";

const sum = (a: ArrayLike<number>) => Array.from(a).reduce((s, v) => s + v, 0);
const estimates = fc.array(fc.double({ min: -0.5, max: 1, noNaN: true }), { minLength: 1, maxLength: 40 });

describe("clipAndRenormalise", () => {
  it("zeroes negatives and rescales to the total", () => {
    expect(Array.from(clipAndRenormalise([0.6, -0.2, 0.2]))).toEqual([0.75, 0, 0.25]);
    expect(Array.from(clipAndRenormalise([-1, -2]))).toEqual([0.5, 0.5]);
    const out = Float64Array.of(0.2, 0.2);
    expect(clipAndRenormalise(out, 2, out)).toBe(out);
    expect(Array.from(out)).toEqual([1, 1]);
  });
});

describe("projectOntoSimplex", () => {
  it("is the Euclidean projection: KKT conditions hold (property test)", () => {
    fc.assert(
      fc.property(estimates, (values) => {
        const x = projectOntoSimplex(values);
        expect(Math.abs(sum(x) - 1)).toBeLessThan(1e-9);
        // KKT: x_i = v_i - theta where x_i > 0, and v_i - theta <= 0 where x_i = 0.
        let theta: number | undefined;
        for (let i = 0; i < values.length; i++) {
          expect(x[i]).toBeGreaterThanOrEqual(0);
          if (x[i]! > 0) {
            const t = values[i]! - x[i]!;
            if (theta === undefined) theta = t;
            expect(Math.abs(t - theta)).toBeLessThan(1e-9);
          }
        }
        for (let i = 0; i < values.length; i++)
          if (x[i] === 0) expect(values[i]! - theta!).toBeLessThanOrEqual(1e-9);
      }),
      { seed: 11, numRuns: 300 },
    );
  });

  it("leaves a distribution unchanged and handles a known case", () => {
    expect(Array.from(projectOntoSimplex([0.25, 0.75]))).toEqual([0.25, 0.75]);
    const x = projectOntoSimplex([0.5, -0.1]);
    expect(x[0]).toBeCloseTo(0.8, 12);
    expect(x[1]).toBeCloseTo(0.2, 12);
  });
});

describe("normSub", () => {
  it("equals the projection when the positive cells sum to at least the total (property test)", () => {
    fc.assert(
      fc.property(estimates, (values) => {
        const positive = values.reduce((s, v) => s + Math.max(v, 0), 0);
        const x = normSub(values);
        expect(Math.abs(sum(x) - 1)).toBeLessThan(1e-9);
        for (const v of x) expect(v).toBeGreaterThanOrEqual(0);
        if (positive >= 1) {
          const y = projectOntoSimplex(values);
          for (let i = 0; i < values.length; i++) expect(Math.abs(x[i]! - y[i]!)).toBeLessThan(1e-9);
        }
      }),
      { seed: 12, numRuns: 300 },
    );
  });

  it("keeps zeroed cells at zero when it must add mass (unlike the projection)", () => {
    const x = normSub([0.5, -0.1]);
    expect(Array.from(x)).toEqual([1, 0]);
  });

  it("rejects bad input naming the function", () => {
    expect(() => normSub([])).toThrow(/normSub: estimate must be a non-empty/);
    expect(() => projectOntoSimplex([Number.NaN])).toThrow(
      /projectOntoSimplex: estimate\[0\] must be finite/,
    );
    expect(() => clipAndRenormalise([1], 0)).toThrow(InvalidParameterError);
    expect(() => clipAndRenormalise([1, 2], 1, new Float64Array(3))).toThrow(
      /out must be a Float64Array of 2 cells/,
    );
  });
});
