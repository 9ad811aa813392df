import { describe, expect, it } from "vitest";
import { InvalidParameterError } from "./errors.js";
import { schonheimBound } from "./schonheim.js";

describe("schonheimBound", () => {
  it("gives the known values of the proven optima", () => {
    expect(schonheimBound(7, 3, 2)).toBe(7);
    expect(schonheimBound(9, 3, 2)).toBe(12);
    expect(schonheimBound(13, 4, 2)).toBe(13);
    expect(schonheimBound(16, 4, 2)).toBe(20);
    expect(schonheimBound(8, 4, 3)).toBe(14);
    expect(schonheimBound(16, 4, 3)).toBe(140);
    expect(schonheimBound(32, 4, 3)).toBe(1240);
    expect(schonheimBound(8, 3, 3)).toBe(56);
    expect(schonheimBound(12, 6, 5)).toBe(132);
  });

  it("satisfies L(v, k, t) = ceil(v/k L(v-1, k-1, t-1)) and L(v, k, 1) = ceil(v/k)", () => {
    for (let v = 2; v <= 40; v++) {
      for (let k = 1; k <= Math.min(v, 10); k++) {
        expect(schonheimBound(v, k, 1)).toBe(Math.ceil(v / k));
        for (let t = 2; t <= k; t++) {
          const inner = schonheimBound(v - 1, k - 1, t - 1);
          expect(schonheimBound(v, k, t)).toBe(Math.ceil((v * inner) / k));
        }
      }
    }
  });

  it("is exact where doubles would round (large v)", () => {
    // L(1000, 3, 3) = C(1000, 3) exactly.
    expect(schonheimBound(1000, 3, 3)).toBe((1000 * 999 * 998) / 6);
  });

  it("rejects parameters outside 1 <= t <= k <= v", () => {
    expect(() => schonheimBound(5, 6, 2)).toThrow(
      /schonheimBound: k must be an integer in \[1, v = 5\] \(got 6\)/,
    );
    expect(() => schonheimBound(5, 3, 4)).toThrow(InvalidParameterError);
    expect(() => schonheimBound(0, 1, 1)).toThrow(/v must be an integer/);
    expect(() => schonheimBound(5, 3, 0)).toThrow(/t must be an integer in \[1, k = 3\]/);
  });
});
