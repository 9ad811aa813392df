import { createTable } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { InvalidAnalysisError } from "./errors.js";
import { independentPairStore, rejectionRates } from "./noise-aware-calibration.js";
import { noiseAwareChiSquare } from "./noise-aware-chi-square.js";

describe("noiseAwareChiSquare", () => {
  it("independentPairStore's pair is exactly independent, and dependent with dependence > 0", () => {
    const store = independentPairStore(2 ** 10, 3, 1);
    const counts = [0, 0, 0, 0];
    for (let r = 0; r < store.size; r++) counts[store.columns[0]![r]! * 2 + store.columns[1]![r]!]!++;
    const n = store.size;
    const row1 = (counts[2]! + counts[3]!) / n;
    const col1 = (counts[1]! + counts[3]!) / n;
    expect(counts[3]! / n).toBeCloseTo(row1 * col1, 14);
    expect(counts[0]! / n).toBeCloseTo((1 - row1) * (1 - col1), 14);
    const dependent = independentPairStore(2 ** 10, 3, 1, 0.1);
    let same = 0;
    for (let r = 0; r < dependent.size; r++)
      if (dependent.columns[0]![r] === dependent.columns[1]![r]) same++;
    // P(a = b) is 3/8 * 1/4 + 5/8 * 3/4 = 0.5625 when independent; 0.9 * 0.5625 + 0.1 = 0.606 with 10% copies.
    expect(same / dependent.size).toBeCloseTo(0.606, 1);
  });

  it("rejects malformed input with typed errors", () => {
    const table = createTable([0, 1], [2, 2], { cells: new Float64Array([0.25, 0.25, 0.25, 0.25]) });
    const answer = { ...table, center: table.cells, covariance: new Float64Array(16) };
    expect(() => noiseAwareChiSquare({ ...answer, covariance: new Float64Array(3) }, 100)).toThrow(
      InvalidAnalysisError,
    );
    expect(() => noiseAwareChiSquare(answer, -1)).toThrow(InvalidAnalysisError);
    expect(() => noiseAwareChiSquare(answer, 100, { replicates: 5 })).toThrow(InvalidAnalysisError);
    // No noise at all and an exactly independent table: never rejects.
    expect(noiseAwareChiSquare(answer, 100, { rng: seededRng(1) }).reject).toBe(false);
  });

  it("type I error within 0.05 +- 0.02 on an independent pair at eps 0.5, 1, 2 (500 runs each), where the plug-in test is far above; power on a dependent pair", () => {
    // Rates over 500 seeded runs have sd sqrt(0.05 * 0.95 / 500) = 0.0097: the band
    // 0.03-0.07 is z = 2.06 either side. The plug-in test must exceed 0.3 (30 sd).
    const store = independentPairStore(2 ** 13, 4, 18);
    const rows = rejectionRates({
      store,
      pair: [0, 1],
      methods: ["calm", "inpht", "margps"],
      eps: [0.5, 1, 2],
      runs: 500,
      seed: 18,
      replicates: 200,
    });
    for (const row of rows) {
      console.log(JSON.stringify(row));
      expect(row.noiseAware, `${row.method} eps=${row.eps}`).toBeGreaterThanOrEqual(0.03);
      expect(row.noiseAware, `${row.method} eps=${row.eps}`).toBeLessThanOrEqual(0.07);
      expect(row.plugIn, `${row.method} eps=${row.eps}`).toBeGreaterThan(0.3);
    }
    const dependent = independentPairStore(2 ** 13, 4, 18, 0.2);
    const power = rejectionRates({
      store: dependent,
      pair: [0, 1],
      methods: ["calm", "inpht", "margps"],
      eps: [2],
      runs: 100,
      seed: 19,
      replicates: 200,
    });
    for (const row of power) expect(row.noiseAware, `${row.method} power`).toBeGreaterThan(0.5);
  });
});
