import { describe, expect, it } from "vitest";
import { contractHistogram, valuesFromHistogram } from "./testing/index.js";

describe("contractHistogram", () => {
  it("puts users in every cell, D - 1 included, and sums to the users asked for", () => {
    for (const [domain, users] of [
      [2, 2],
      [3, 1000],
      [8, 3000],
      [37, 37],
      [37, 200_000],
    ] as const) {
      const counts = contractHistogram(domain, users);
      expect(counts.reduce((s, c) => s + c, 0)).toBe(users);
      for (const c of counts) expect(Number.isInteger(c) && c >= 1).toBe(true);
      // Skewed: cell 0 holds the most users, cell D - 1 the fewest (ties allowed at small sizes).
      expect(counts[0]).toBeGreaterThanOrEqual(counts[domain - 1]!);
      const values = valuesFromHistogram(counts);
      expect(values).toHaveLength(users);
      expect(values[users - 1]).toBe(domain - 1);
    }
    expect(() => contractHistogram(8, 7)).toThrow(/users must be >= D = 8/);
  });
});
