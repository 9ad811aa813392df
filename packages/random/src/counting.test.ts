import { describe, expect, it } from "vitest";
import { binomialCoefficient, binomialTable, kSubsets, nextKSubset, popcount32 } from "./counting.js";

function exactBinomial(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let value = 1n;
  for (let i = 1; i <= k; i++) value = (value * BigInt(n - k + i)) / BigInt(i);
  return value;
}

describe("binomialCoefficient", () => {
  it("matches Pascal's triangle for n <= 66 (Infinity past 2^53 - 1)", () => {
    const limit = BigInt(Number.MAX_SAFE_INTEGER);
    let row = [1n];
    for (let n = 0; n <= 66; n++) {
      for (let k = -1; k <= n + 1; k++) {
        const exact = row[k] ?? 0n;
        expect(binomialCoefficient(n, k)).toBe(exact > limit ? Number.POSITIVE_INFINITY : Number(exact));
      }
      row = [1n, ...row.slice(1).map((x, j) => x + row[j]!), 1n];
    }
  });

  it("is exact up to 2^53 - 1, including where a double product would round", () => {
    // C(56, 28) ~ 7.6e15 < 2^53, but its last product C(55, 27) * 56 is past 2^53 (the BigInt path).
    for (const [n, k] of [
      [56, 28],
      [55, 27],
      [100, 10],
      [1000, 5],
      [2 ** 26, 2],
    ] as const) {
      const exact = exactBinomial(n, k);
      expect(exact <= BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
      expect(BigInt(binomialCoefficient(n, k))).toBe(exact);
    }
  });

  it("is Infinity above 2^53 - 1, never a rounded value", () => {
    expect(binomialCoefficient(62, 31)).toBe(Number.POSITIVE_INFINITY);
    expect(binomialCoefficient(1e9, 5e8)).toBe(Number.POSITIVE_INFINITY);
    expect(binomialCoefficient(2 ** 27, 2)).toBe(Number(exactBinomial(2 ** 27, 2)));
  });
});

describe("popcount32", () => {
  it("counts the set bits of the low 32 bits", () => {
    for (let x = 0; x < 1 << 12; x++) {
      let bits = 0;
      for (let y = x; y; y >>>= 1) bits += y & 1;
      expect(popcount32(x)).toBe(bits);
    }
    expect(popcount32(0xffffffff)).toBe(32);
    expect(popcount32(-1)).toBe(32);
    expect(popcount32(0x80000000)).toBe(1);
  });
});

describe("kSubsets and nextKSubset", () => {
  it("list every k-subset once, ascending, in lexicographic order (C(n, k) of them)", () => {
    for (let n = 0; n <= 9; n++) {
      for (let k = 0; k <= n + 1; k++) {
        const subsets = kSubsets(n, k);
        expect(subsets).toHaveLength(binomialCoefficient(n, k));
        for (const s of subsets) {
          expect(s).toHaveLength(k);
          for (let i = 0; i < k; i++) {
            expect(s[i]).toBeGreaterThanOrEqual(i === 0 ? 0 : s[i - 1]! + 1);
            expect(s[i]).toBeLessThan(n);
          }
        }
        for (let i = 1; i < subsets.length; i++) {
          const [a, b] = [subsets[i - 1]!, subsets[i]!];
          const first = a.findIndex((x, j) => x !== b[j]);
          expect(a[first]!).toBeLessThan(b[first]!);
        }
      }
    }
    expect(kSubsets(4, 2)).toEqual([
      [0, 1],
      [0, 2],
      [0, 3],
      [1, 2],
      [1, 3],
      [2, 3],
    ]);
    expect(kSubsets(3, 0)).toEqual([[]]);
  });

  it("nextKSubset works in place on an Int32Array and stops at the last subset", () => {
    const subset = Int32Array.from([0, 1, 2]);
    let count = 1;
    while (nextKSubset(subset, 6)) count++;
    expect(count).toBe(20);
    expect(Array.from(subset)).toEqual([3, 4, 5]);
  });
});

describe("binomialTable", () => {
  it("holds C(n, j) for n <= nMax, j <= kMax (0 where j > n)", () => {
    const table = binomialTable(40, 6);
    for (let n = 0; n <= 40; n++)
      for (let j = 0; j <= 6; j++) expect(table[n * 7 + j]).toBe(binomialCoefficient(n, j));
    expect(binomialTable(3, 5)).toEqual(
      Float64Array.from([1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 2, 1, 0, 0, 0, 1, 3, 3, 1, 0, 0]),
    );
  });
});
