import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  clearCoveringDesignCache,
  coverDesignSize,
  coveringDesign,
  DEFAULT_COVERING_SEED,
  describeCoveringDesign,
  exactCovering,
} from "./design.js";
import { DesignTooLargeError, InvalidParameterError } from "./errors.js";
import { schonheimBound } from "./schonheim.js";
import { choose } from "./test-support.js";
import { verify } from "./verify.js";

function isSortedDesign(blocks: number[][], k: number): boolean {
  const ascending = blocks.every((b) => b.length === k && b.every((p, i) => i === 0 || b[i - 1]! < p));
  const lexicographic = blocks.every((b, i) => {
    if (i === 0) return true;
    const a = blocks[i - 1]!;
    const j = a.findIndex((p, m) => p !== b[m]);
    return j >= 0 && a[j]! < b[j]!;
  });
  return ascending && lexicographic;
}

describe("coveringDesign: the proven optima of eight known sizes", () => {
  const required: [number, number, number, number][] = [
    [7, 3, 2, 7],
    [9, 3, 2, 12],
    [13, 4, 2, 13],
    [16, 4, 2, 20],
    [8, 4, 3, 14],
    [16, 4, 3, 140],
    [32, 4, 3, 1240],
    [8, 3, 3, 56],
  ];
  for (const [v, k, t, size] of required) {
    it(`C(${v},${k},${t}) = ${size}`, () => {
      const blocks = coveringDesign(v, k, t);
      expect(blocks).toHaveLength(size);
      expect(coverDesignSize(v, k, t)).toBe(size);
      expect(verify(blocks, v, t)).toBe(true);
      expect(isSortedDesign(blocks, k)).toBe(true);
      expect(exactCovering(v, k, t)).toEqual(blocks);
      const described = describeCoveringDesign(v, k, t);
      expect([described.size, described.lowerBound, described.optimal]).toEqual([size, size, true]);
    });
  }

  it("CALM's example: 14 views of 4 attributes cover the 3-way marginals of d = 8 (56 views of 3 otherwise)", () => {
    expect(coverDesignSize(8, 4, 3)).toBe(14);
    expect(coverDesignSize(8, 3, 3)).toBe(56);
  });
});

describe("coveringDesign: elementary cases", () => {
  it("k = v, t = 1, t = k and k = v - 1 are optimal by construction", () => {
    expect(coveringDesign(5, 5, 3)).toEqual([[0, 1, 2, 3, 4]]);
    expect(coveringDesign(10, 3, 1)).toEqual([
      [0, 1, 2],
      [3, 4, 5],
      [6, 7, 8],
      [7, 8, 9],
    ]);
    expect(coverDesignSize(12, 4, 4)).toBe(choose(12, 4));
    expect(coveringDesign(9, 8, 4)).toHaveLength(5);
    expect(describeCoveringDesign(9, 8, 4).optimal).toBe(true);
  });
});

describe("coveringDesign: search results", () => {
  it("are coverings of sorted k-subsets, at least the Schönheim bound, for every small (v, k, t) (property)", () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 2, max: 16 })
          .chain((v) =>
            fc
              .integer({ min: 1, max: Math.min(v, 7) })
              .chain((k) =>
                fc.tuple(fc.constant(v), fc.constant(k), fc.integer({ min: 1, max: Math.min(k, 4) })),
              ),
          ),
        ([v, k, t]) => {
          const blocks = coveringDesign(v, k, t, { iterations: 20_000 });
          expect(verify(blocks, v, t)).toBe(true);
          expect(isSortedDesign(blocks, k)).toBe(true);
          expect(blocks.length).toBeGreaterThanOrEqual(schonheimBound(v, k, t));
          expect(blocks.length).toBeLessThanOrEqual(choose(v, t));
        },
      ),
      { seed: 20180815, numRuns: 60 },
    );
  });

  it("beat the greedy start where the annealing has room (CALM sizes)", () => {
    // d = 16 attributes, views of 5, all 3-way marginals; Schönheim bound 61.
    const result = describeCoveringDesign(16, 5, 3);
    expect(verify(result.blocks, 16, 3)).toBe(true);
    expect(result.size).toBeLessThanOrEqual(72);
    expect(result.construction).toMatch(/annealing|flats|spaces|point added/);
  });

  it("are deterministic: the same call gives the same blocks, also after the cache is cleared", () => {
    const first = coveringDesign(14, 5, 3);
    clearCoveringDesignCache();
    const second = coveringDesign(14, 5, 3);
    expect(second).toEqual(first);
    expect(coveringDesign(14, 5, 3, { seed: DEFAULT_COVERING_SEED })).toEqual(first);
    const other = coveringDesign(14, 5, 3, { seed: 99 });
    expect(verify(other, 14, 3)).toBe(true);
  });

  it("return fresh copies (mutating a result does not change the cache)", () => {
    const blocks = coveringDesign(9, 4, 2);
    blocks[0]![0] = 99;
    blocks.pop();
    expect(verify(coveringDesign(9, 4, 2), 9, 2)).toBe(true);
  });

  it("are pinned: these sizes and blocks are part of the reproducibility contract", () => {
    // A change here changes CALM plans built with default options: bump the package
    // minor version and say so in the changeset.
    const fingerprint = (blocks: number[][]) =>
      blocks.flat().reduce((h, p) => (Math.imul(h, 31) + p + 1) >>> 0, 7);
    const pinned: [number, number, number][] = [
      [12, 5, 3],
      [16, 6, 3],
      [20, 5, 2],
    ];
    const observed = pinned.map(([v, k, t]) => {
      const blocks = coveringDesign(v, k, t);
      return [v, k, t, blocks.length, fingerprint(blocks)];
    });
    expect(observed).toMatchInlineSnapshot(`
      [
        [
          12,
          5,
          3,
          29,
          1680981344,
        ],
        [
          16,
          6,
          3,
          40,
          1679083174,
        ],
        [
          20,
          5,
          2,
          21,
          1500716014,
        ],
      ]
    `);
  });
});

describe("coveringDesign: large and invalid requests", () => {
  it("beyond the search limit gives sizes without building blocks, and refuses to build huge designs", () => {
    // No search happens here (speed is measured in bench/, never asserted): the size comes from recursions.
    const size = coverDesignSize(64, 20, 8);
    expect(size).toBeGreaterThanOrEqual(schonheimBound(64, 20, 8));
    expect(() => coveringDesign(64, 20, 8)).toThrow(DesignTooLargeError);
  });

  it("designs from the recursions (no search) have exactly coverDesignSize blocks and cover", () => {
    // (40, 30, 6): block growth would cost too much, so the group construction (28 blocks) is used.
    const result = describeCoveringDesign(40, 30, 6);
    expect(result.blocks).toHaveLength(coverDesignSize(40, 30, 6));
    expect(isSortedDesign(result.blocks, 30)).toBe(true);
    expect(verify(result.blocks, 40, 6)).toBe(true);
  });

  it("rejects parameters and options outside their domains", () => {
    expect(() => coveringDesign(8, 9, 2)).toThrow(
      /coveringDesign: k must be an integer in \[1, v = 8\] \(got 9\)/,
    );
    expect(() => coverDesignSize(65, 4, 2)).toThrow(/v must be an integer in \[1, 64\]/);
    expect(() => coverDesignSize(8, 4, 5)).toThrow(InvalidParameterError);
    expect(() => coverDesignSize(8, 4, 2, { seed: -1 })).toThrow(/options.seed/);
    expect(() => coverDesignSize(8, 4, 2, { iterations: 1.5 })).toThrow(/options.iterations/);
    expect(() => coverDesignSize(8, 4, 2, { timeLimitMs: -5 })).toThrow(/options.timeLimitMs/);
    expect(() => exactCovering(8, 2, 3)).toThrow(InvalidParameterError);
  });

  it("exactCovering is undefined when no proven optimum is known", () => {
    expect(exactCovering(20, 5, 3)).toBeUndefined();
    expect(exactCovering(16, 8, 4)).toHaveLength(30);
  });
});
