import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { allQueries, randomQueries } from "./queries.js";

describe("queries", () => {
  it("allQueries lists every k-subset once, in lexicographic order", () => {
    const all = allQueries(5, 3);
    expect(all.length).toBe(10);
    expect(all[0]).toEqual([0, 1, 2]);
    expect(all[9]).toEqual([2, 3, 4]);
    expect(new Set(all.map((q) => q.join())).size).toBe(10);
    expect(allQueries(3, 0)).toEqual([[]]);
  });

  it("randomQueries is reproducible and gives ascending distinct members", () => {
    const a = randomQueries(seededRng(5), 32, 8, 50);
    const b = randomQueries(seededRng(5), 32, 8, 50);
    expect(a).toEqual(b);
    for (const q of a) {
      expect(q.length).toBe(8);
      for (let i = 1; i < q.length; i++) expect(q[i]!).toBeGreaterThan(q[i - 1]!);
    }
  });

  it("is uniform over the C(6, 3) = 20 subsets (chi-square, seeded)", () => {
    const draws = 40_000;
    const counts = new Map<string, number>();
    for (const q of randomQueries(seededRng(9), 6, 3, draws))
      counts.set(q.join(), (counts.get(q.join()) ?? 0) + 1);
    expect(counts.size).toBe(20);
    const expected = draws / 20;
    let chi = 0;
    for (const c of counts.values()) chi += (c - expected) ** 2 / expected;
    // chi-square with 19 degrees of freedom, as a z-score; |z| < 4.5 fails by chance with probability ~1e-5.
    expect(Math.abs((chi - 19) / Math.sqrt(38))).toBeLessThan(4.5);
  });

  it("rejects k outside [1, d]", () => {
    expect(() => randomQueries(seededRng(1), 4, 5, 1)).toThrow(
      /randomQueries: k must be an integer in \[1, d = 4\] \(got 5\)/,
    );
  });
});
