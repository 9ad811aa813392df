import { describe, expect, it } from "vitest";
import { createCoefficientIndex } from "./coefficient-index.js";
import { InvalidParameterError } from "./errors.js";
import { fwht } from "./fwht.js";
import { gatherCoefficients, marginalFromRankedCoefficients } from "./gather.js";
import { coefficientsFromMarginal, marginalFromCoefficients } from "./marginal-coefficients.js";
import { marginalizeBinary } from "./marginalize.js";
import { attributesToMask, maskToAttributes } from "./masks.js";
import { hadamardSign } from "./sign.js";
import { coefficientsFromTable } from "./table-coefficients.js";
import { maxAbsDiff, popcount, testDistribution, testValues } from "./test-support.js";

const D = 7;
const p = testDistribution(3, D);

/** Bits of cell j (attribute a at bit d-1-a) as a record of 0/1 values. */
function recordOf(j: number, d: number): number[] {
  return Array.from({ length: d }, (_, a) => (j >>> (d - 1 - a)) & 1);
}

/** theta_alpha = E[(-1)^{|j ∧ alpha|}] by the definition (../../../docs/algorithms.md#hadamard-methods), straight from the records. */
function thetaByDefinition(table: Float64Array, d: number, alpha: number[]): number {
  let sum = 0;
  for (let j = 0; j < table.length; j++) sum += hadamardSign(recordOf(j, d), alpha) * table[j]!;
  return sum;
}

/** M_beta by counting records cell by cell. */
function marginalByDefinition(table: Float64Array, d: number, beta: number[]): Float64Array {
  const out = new Float64Array(2 ** beta.length);
  for (let j = 0; j < table.length; j++) {
    const record = recordOf(j, d);
    let gamma = 0;
    for (const a of beta) gamma = gamma * 2 + record[a]!;
    out[gamma]! += table[j]!;
  }
  return out;
}

const subsets: number[][] = [[0], [6], [1, 4], [0, 2, 5], [1, 2, 3, 6], [0, 1, 2, 3, 4, 5, 6], []];

describe("marginalizeBinary", () => {
  it("equals counting records cell by cell (first attribute most significant)", () => {
    for (const beta of subsets) {
      expect(maxAbsDiff(marginalizeBinary(p, D, beta), marginalByDefinition(p, D, beta))).toBeLessThan(1e-15);
    }
    const counts = Float64Array.from({ length: 8 }, (_, j) => j); // cell j holds j
    expect(Array.from(marginalizeBinary(counts, 3, [0]))).toEqual([0 + 1 + 2 + 3, 4 + 5 + 6 + 7]);
    expect(Array.from(marginalizeBinary(counts, 3, [2]))).toEqual([0 + 2 + 4 + 6, 1 + 3 + 5 + 7]);
  });
  it("rejects a table of the wrong length or a bad beta", () => {
    expect(() => marginalizeBinary(p, D + 1, [0])).toThrow(/table.length must be 2\^d/);
    expect(() => marginalizeBinary(p, D, [3, 3])).toThrow(InvalidParameterError);
    expect(() => marginalizeBinary(p, D, [0], new Float64Array(3))).toThrow(/out.length/);
  });
});

describe("coefficients of a marginal", () => {
  it("coefficientsFromTable gives theta_alpha = E[(-1)^{|j ∧ alpha|}] for every alpha ⊆ beta", () => {
    for (const beta of subsets) {
      const theta = coefficientsFromTable(p, D, beta);
      const k = beta.length;
      expect(theta[0]).toBeCloseTo(1, 14);
      for (let mask = 0; mask < 2 ** k; mask++) {
        const alpha = beta.filter((_, i) => (mask >>> (k - 1 - i)) & 1);
        expect(theta[mask]).toBeCloseTo(thetaByDefinition(p, D, alpha), 13);
      }
    }
  });

  it("agrees with the FWHT of the full table read at attributesToMask(alpha)", () => {
    const full = fwht(p.slice());
    const beta = [1, 2, 3, 6];
    const theta = coefficientsFromTable(p, D, beta);
    for (let mask = 0; mask < 16; mask++) {
      const alpha = beta.filter((_, i) => (mask >>> (3 - i)) & 1);
      expect(theta[mask]).toBeCloseTo(full[attributesToMask(alpha, D)]!, 13);
    }
  });

  it("marginalFromCoefficients is the ../../../docs/algorithms.md#hadamard-methods formula and inverts coefficientsFromMarginal", () => {
    const k = 4;
    const theta = testValues(11, 2 ** k);
    const marginal = marginalFromCoefficients(theta);
    for (let gamma = 0; gamma < 2 ** k; gamma++) {
      let sum = 0;
      for (let alpha = 0; alpha < 2 ** k; alpha++)
        sum += (popcount(gamma & alpha) & 1 ? -1 : 1) * theta[alpha]!;
      expect(marginal[gamma]).toBeCloseTo(sum / 2 ** k, 14);
    }
    expect(maxAbsDiff(coefficientsFromMarginal(marginal), theta)).toBeLessThan(1e-14);
    for (const beta of subsets) {
      const m = marginalizeBinary(p, D, beta);
      expect(maxAbsDiff(marginalFromCoefficients(coefficientsFromMarginal(m)), m)).toBeLessThan(1e-15);
    }
  });

  it("works in place when out is the input, and rejects bad lengths", () => {
    const m = Float64Array.of(0.1, 0.2, 0.3, 0.4);
    expect(coefficientsFromMarginal(m, m)).toBe(m);
    expect(m[0]).toBeCloseTo(1, 15);
    expect(() => coefficientsFromMarginal([1, 2, 3])).toThrow(
      /coefficientsFromMarginal: input.length must be a power of two/,
    );
    expect(() => marginalFromCoefficients([1, 2], new Float64Array(4))).toThrow(/out.length/);
  });
});

describe("ranked coefficients to marginals", () => {
  const k = 3;
  const index = createCoefficientIndex(D, k);
  // The exact theta for every alpha in T, in ranked order.
  const ranked = Float64Array.from({ length: index.size }, (_, r) =>
    thetaByDefinition(p, D, index.unrank(r)),
  );

  it("marginalFromRankedCoefficients reproduces every k'-way marginal, k' <= k", () => {
    for (const beta of [[0], [2, 5], [0, 3, 6], [4, 5, 6], []]) {
      const estimate = marginalFromRankedCoefficients(ranked, index, beta);
      expect(maxAbsDiff(estimate, marginalByDefinition(p, D, beta))).toBeLessThan(1e-14);
    }
  });

  it("gatherCoefficients puts theta_∅ = 1 first and checks its inputs", () => {
    const local = gatherCoefficients(ranked, index, [1, 4]);
    expect(local[0]).toBe(1);
    expect(local[0b10]).toBe(ranked[index.rank([1])]);
    expect(local[0b01]).toBe(ranked[index.rank([4])]);
    expect(local[0b11]).toBe(ranked[index.rank([1, 4])]);
    expect(() => gatherCoefficients(ranked, index, [0, 1, 2, 3])).toThrow(/\|beta\| must be <= index.k = 3/);
    expect(() => gatherCoefficients(ranked.subarray(1), index, [0])).toThrow(/ranked.length/);
  });
});

describe("masks and signs", () => {
  it("attributesToMask / maskToAttributes round-trip with attribute a at bit d-1-a", () => {
    expect(attributesToMask([0], 4)).toBe(0b1000);
    expect(attributesToMask([0, 3], 4)).toBe(0b1001);
    expect(attributesToMask([0, 31], 32)).toBe(2 ** 31 + 1);
    for (let mask = 0; mask < 64; mask++) expect(attributesToMask(maskToAttributes(mask, 6), 6)).toBe(mask);
    expect(() => maskToAttributes(64, 6)).toThrow(InvalidParameterError);
    expect(() => attributesToMask([1, 0], 6)).toThrow(/strictly ascending/);
  });
  it("hadamardSign is (-1)^(sum of the record's bits in alpha) and rejects non-binary values", () => {
    expect(hadamardSign([1, 0, 1, 1], [0, 2])).toBe(1);
    expect(hadamardSign([1, 0, 1, 1], [0, 1])).toBe(-1);
    expect(hadamardSign([1, 0, 1, 1], [])).toBe(1);
    expect(() => hadamardSign([2, 0], [0])).toThrow(/record\[0\] must be 0 or 1/);
  });
});
