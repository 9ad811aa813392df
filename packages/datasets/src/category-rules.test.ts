import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { capNominal, capOrdinal, dropEmptyCategories } from "./category-rules.js";

describe("capNominal", () => {
  it("keeps the c-1 most frequent (ties: lower code) in decreasing count and merges the rest into other", () => {
    const result = capNominal([5, 9, 1, 9, 3], ["a", "b", "c", "d", "e"], 3);
    expect(result.labels).toEqual(["b", "d", "other"]);
    expect(Array.from(result.mapping)).toEqual([2, 0, 2, 1, 2]);
    expect(result.rule).toBe('kept the 2 most frequent of 5 categories, merged 3 into "other"');
  });

  it("leaves attributes within the cap alone and avoids a label clash", () => {
    expect(capNominal([1, 2], ["a", "b"], 2).rule).toBe("none");
    expect(capNominal([3, 2, 1], ["other", "x", "y"], 2).labels).toEqual(["other", "other*"]);
  });
});

describe("capOrdinal", () => {
  it("cuts by mid-rank: a heavy category gets its own bucket, ranges are labelled lo..hi", () => {
    // N = 100; mid-ranks: 0 -> 45.5 (bucket 1 of 3), 1..4 -> >= 91 (bucket 2).
    const result = capOrdinal([91, 3, 3, 2, 1], ["0", "1", "2", "3", "4"], 3);
    expect(result.labels).toEqual(["0", "1..4"]);
    expect(Array.from(result.mapping)).toEqual([0, 1, 1, 1, 1]);
    // Uniform counts over 6 categories into 3 buckets: pairs.
    expect(capOrdinal([1, 1, 1, 1, 1, 1], ["a", "b", "c", "d", "e", "f"], 3).labels).toEqual([
      "a..b",
      "c..d",
      "e..f",
    ]);
    // Re-merging merged labels keeps the outer ends.
    expect(capOrdinal([1, 1, 1], ["1..3", "4..6", "7..9"], 2).labels).toEqual(["1..3", "4..9"]);
  });

  it("puts categories without records with the previous category (the first: the first bucket)", () => {
    const result = capOrdinal([0, 5, 0, 5, 0], ["a", "b", "c", "d", "e"], 2);
    expect(result.labels).toEqual(["a..c", "d..e"]);
  });

  it("always gives at most B contiguous non-empty buckets with a monotone mapping (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 50 }), { minLength: 2, maxLength: 40 }),
        fc.integer({ min: 2, max: 8 }),
        (counts, buckets) => {
          if (!counts.some((c) => c > 0)) counts[0] = 1;
          const labels = counts.map((_, i) => String(i));
          const { mapping, labels: merged } = capOrdinal(counts, labels, buckets);
          expect(merged.length).toBeLessThanOrEqual(buckets);
          for (let i = 1; i < mapping.length; i++)
            expect(mapping[i]! - mapping[i - 1]!).toBeGreaterThanOrEqual(0);
          for (let i = 1; i < mapping.length; i++)
            expect(mapping[i]! - mapping[i - 1]!).toBeLessThanOrEqual(1);
          const totals = new Array(merged.length).fill(0);
          counts.forEach((c, i) => {
            totals[mapping[i]!] += c;
          });
          if (counts.length > buckets) expect(totals.every((t) => t > 0)).toBe(true);
        },
      ),
    );
  });
});

describe("dropEmptyCategories", () => {
  it("removes categories without records and keeps the order", () => {
    const result = dropEmptyCategories([2, 0, 1], ["a", "b", "c"]);
    expect(result.labels).toEqual(["a", "c"]);
    expect(Array.from(result.mapping)).toEqual([0, 1, 1]);
    expect(result.rule).toBe("removed 1 category without records");
  });
});
