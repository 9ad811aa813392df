import { createTable } from "@calm-ldp/marginal-algebra";
import { multinomial, seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import {
  chiSquareCdf,
  chiSquareQuantile,
  chiSquareSurvival,
  logGamma,
  regularizedGamma,
} from "./chi-square-distribution.js";
import { chiSquareIndependence } from "./chi-square-test.js";
import { InvalidAnalysisError } from "./errors.js";

describe("chi-square distribution", () => {
  it("matches known quantiles and values", () => {
    // Reference values (R: qchisq(0.95, df), pchisq(x, df), lgamma(x)).
    expect(chiSquareQuantile(0.95, 1)).toBeCloseTo(3.841458820694124, 9);
    expect(chiSquareQuantile(0.95, 2)).toBeCloseTo(5.991464547107979, 9);
    expect(chiSquareQuantile(0.95, 4)).toBeCloseTo(9.487729036781154, 9);
    expect(chiSquareQuantile(0.99, 10)).toBeCloseTo(23.20925115782465, 8);
    expect(chiSquareQuantile(0.5, 1)).toBeCloseTo(0.4549364231195724, 9);
    expect(chiSquareCdf(2, 2)).toBeCloseTo(1 - Math.exp(-1), 13);
    expect(chiSquareSurvival(10, 2)).toBeCloseTo(Math.exp(-5), 15);
    // a far tail keeps its relative accuracy: P(X >= 100) for df = 1 is 1.523971e-23
    expect(chiSquareSurvival(100, 1) / 1.523970604832105e-23).toBeCloseTo(1, 8);
    expect(logGamma(0.5)).toBeCloseTo(0.5 * Math.log(Math.PI), 13);
    expect(logGamma(10)).toBeCloseTo(Math.log(362880), 12);
    for (const [a, x] of [
      [0.5, 0.1],
      [3, 2],
      [3, 8],
      [20, 25],
    ] as const) {
      const [p, q] = regularizedGamma(a, x);
      expect(p + q).toBeCloseTo(1, 14);
    }
    expect(regularizedGamma(2, 0)).toEqual([0, 1]);
  });

  it("refuses bad parameters", () => {
    expect(() => chiSquareQuantile(1, 1)).toThrow(InvalidAnalysisError);
    expect(() => chiSquareQuantile(0.5, 0)).toThrow(/dof must be/);
    expect(() => chiSquareCdf(Number.NaN, 1)).toThrow(/x must be a number/);
  });
});

describe("chiSquareIndependence", () => {
  it("computes Pearson's statistic of a 2 x 2 table", () => {
    // counts [[30, 10], [20, 40]] of n = 100: expected [[20, 20], [30, 30]], statistic 16.667
    const table = createTable([2, 5], [2, 2], { unit: "count" });
    table.cells.set([30, 10, 20, 40]);
    const test = chiSquareIndependence(table, 100);
    expect(test.statistic).toBeCloseTo(50 / 3, 10);
    expect(test.dof).toBe(1);
    expect(test.critical).toBeCloseTo(3.841458820694124, 9);
    expect(test.reject).toBe(true);
    expect(test.pValue).toBeCloseTo(chiSquareSurvival(50 / 3, 1), 15);
    // the same table as fractions gives the same statistic for the same n
    const fractions = createTable([2, 5], [2, 2]);
    fractions.cells.set([0.3, 0.1, 0.2, 0.4]);
    expect(chiSquareIndependence(fractions, 100).statistic).toBeCloseTo(50 / 3, 10);
    // a larger alpha lowers the critical value
    expect(chiSquareIndependence(fractions, 100, { alpha: 0.5 }).critical).toBeCloseTo(0.4549364231195724, 9);
  });

  it("leaves out rows and columns without mass", () => {
    const table = createTable([0, 1], [3, 2]);
    table.cells.set([0.25, 0.25, 0, 0, 0.25, 0.25]);
    const test = chiSquareIndependence(table, 1000);
    expect(test.dof).toBe(1);
    expect(test.statistic).toBeCloseTo(0, 12);
    expect(test.reject).toBe(false);
    const single = createTable([0, 1], [2, 2]);
    single.cells.set([0.5, 0.5, 0, 0]);
    expect(chiSquareIndependence(single, 10)).toMatchObject({ dof: 0, reject: false, pValue: 1 });
  });

  it("rejects a true independence hypothesis about 5% of the time", () => {
    const rng = seededRng(2018);
    const probabilities = [0.12, 0.28, 0.18, 0.42]; // independent: rows 0.4/0.6, columns 0.3/0.7
    const trials = 4000;
    let rejections = 0;
    const table = createTable([0, 1], [2, 2], { unit: "count" });
    for (let t = 0; t < trials; t++) {
      multinomial(rng, 2000, probabilities, table.cells);
      if (chiSquareIndependence(table, 2000).reject) rejections++;
    }
    const rate = rejections / trials;
    // binomial sd sqrt(0.05 * 0.95 / 4000) = 0.0034; z = 4.5 gives +-0.0155 (the test is
    // asymptotic, its true size at n = 2000 is within 0.002 of 5%).
    expect(Math.abs(rate - 0.05)).toBeLessThan(0.0155);
  });

  it("refuses tables that are not 2-way", () => {
    const table = createTable([0], [2]);
    table.cells.set([0.5, 0.5]);
    expect(() => chiSquareIndependence(table, 10)).toThrow(/2-way marginal/);
    const two = createTable([0, 1], [2, 2]);
    expect(() => chiSquareIndependence(two, 10)).toThrow(/positive finite total/);
    two.cells.fill(0.25);
    expect(() => chiSquareIndependence(two, 0)).toThrow(/n must be/);
    expect(() => chiSquareIndependence(two, 10, { alpha: 1 })).toThrow(/alpha/);
  });
});
