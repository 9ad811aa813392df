import { describe, expect, it } from "vitest";
import { DesignTooLargeError, InvalidParameterError } from "./errors.js";
import { coverageCounts } from "./test-support.js";
import { countUncovered, verify } from "./verify.js";

/** A deterministic pseudo-random block family (mulberry32). */
function randomBlocks(seed: number, v: number, k: number, count: number): number[][] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let z = Math.imul(state ^ (state >>> 15), 1 | state);
    z = (z + Math.imul(z ^ (z >>> 7), 61 | z)) ^ z;
    return ((z ^ (z >>> 14)) >>> 0) / 2 ** 32;
  };
  return Array.from({ length: count }, () => {
    const block = new Set<number>();
    while (block.size < k) block.add(Math.floor(next() * v));
    return [...block];
  });
}

describe("countUncovered and verify", () => {
  it("agree with a brute-force inclusion test on random block families", () => {
    for (let trial = 0; trial < 60; trial++) {
      const v = 5 + (trial % 8);
      const k = 2 + (trial % 4);
      const t = 1 + (trial % Math.min(3, k));
      const blocks = randomBlocks(trial, v, Math.min(k, v), 3 + trial);
      const expected = coverageCounts(blocks, v, t).filter((c) => c === 0).length;
      expect(countUncovered(blocks, v, t)).toBe(expected);
      expect(verify(blocks, v, t)).toBe(expected === 0);
    }
  });

  it("detects a single missing t-subset", () => {
    // The Fano plane S(2, 3, 7): the translates of the difference set {0, 1, 3} mod 7.
    const fano = Array.from({ length: 7 }, (_, i) => [i, (i + 1) % 7, (i + 3) % 7].sort((a, b) => a - b));
    expect(verify(fano, 7, 2)).toBe(true);
    expect(countUncovered(fano.slice(1), 7, 2)).toBe(3);
    expect(verify(fano, 7, 3)).toBe(false);
    expect(verify(fano, 8, 2)).toBe(false); // point 7 is in no block
  });

  it("accepts unsorted blocks and blocks of other sizes", () => {
    expect(
      verify(
        [
          [2, 0, 1],
          [3, 1, 0, 2],
        ],
        4,
        3,
      ),
    ).toBe(true);
    expect(verify([[0], [1, 2]], 3, 2)).toBe(false);
  });

  it("rejects malformed blocks and oversized problems", () => {
    expect(() => verify([[0, 0, 1]], 3, 2)).toThrow(/block 0 must hold distinct integers in \[0, v = 3\)/);
    expect(() => verify([[0, 3]], 3, 2)).toThrow(InvalidParameterError);
    expect(() => verify([[0, 1.5]], 3, 1)).toThrow(InvalidParameterError);
    expect(() => verify([], 3, 4)).toThrow(/t must be an integer in \[1, v = 3\]/);
    expect(() => verify([], 64, 10)).toThrow(DesignTooLargeError);
  });
});
