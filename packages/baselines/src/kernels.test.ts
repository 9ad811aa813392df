import { localHash } from "@calm-ldp/frequency-oracles";
import { createRecordStore, uniformSchema } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import type { HadamardPlan, SketchPlan } from "./api.js";
import { hadamardPerUser, planHadamard } from "./hadamard-kernel.js";
import { hcmsPerUser, planSketch } from "./sketch-kernel.js";

/**
 * The exact law of the Hadamard client kernels, from 2^18 users holding one
 * record: every entry is drawn with probability 1/E, and the reported sign is the
 * true one with probability p = e^eps / (1 + e^eps), so any two records' output
 * probabilities differ by at most p / (1 - p) = e^eps (the privacy claim). Each
 * frequency is checked by a z-test at 4.5 standard errors (about 50 checks; the
 * seed is fixed).
 */
const N = 2 ** 18;
const Z = 4.5;

function copies(record: number[]): ReturnType<typeof createRecordStore> {
  return createRecordStore(uniformSchema(record.length), {
    columns: record.map((v) => new Uint8Array(N).fill(v)),
  });
}

function expectBinomial(count: number, trials: number, p: number): void {
  expect(Math.abs(count - trials * p) / Math.sqrt(trials * p * (1 - p))).toBeLessThan(Z);
}

describe("InpHT client kernel", () => {
  it("draws entries uniformly and keeps the true sign with probability e^eps / (1 + e^eps)", () => {
    const record = [1, 0, 1, 1];
    const plan: HadamardPlan = planHadamard("inpht", { schema: uniformSchema(4), n: N, eps: 0.7, k: 2 });
    const aggregator = hadamardPerUser(plan, copies(record), seededRng(1));
    expect(plan.entries).toBe(10);
    const masks = [8, 4, 2, 1, 12, 10, 6, 9, 5, 3]; // hadamard's rank order over bits a0..a3 = 8, 4, 2, 1
    const bits = 0b1011;
    for (let e = 0; e < plan.entries; e++) {
      expectBinomial(aggregator.counts[e]!, N, 1 / plan.entries);
      let parity = 0;
      for (let x = masks[e]! & bits; x; x &= x - 1) parity ^= 1;
      const pMinus = parity === 1 ? plan.p : 1 - plan.p;
      expectBinomial(aggregator.minus[e]!, aggregator.counts[e]!, pMinus);
    }
  });
});

describe("InpHTCMS client kernel", () => {
  it("draws (row, coefficient) uniformly and keeps the sign of the hashed value with probability p", () => {
    const record = [1, 1, 0, 1, 0];
    const plan: SketchPlan = planSketch(
      "inphtcms",
      { schema: uniformSchema(5), n: N, eps: 1.2, k: 2 },
      {
        rows: 2,
        width: 8,
      },
    );
    const aggregator = hcmsPerUser(plan, copies(record), seededRng(2));
    const e = Math.exp(plan.eps);
    const p = e / (1 + e);
    const entries = plan.rows * (plan.width - 1);
    for (let row = 0; row < plan.rows; row++) {
      const y = localHash(plan.hashSeeds[row]!, 0b11010, plan.width);
      for (let l = 1; l < plan.width; l++) {
        const entry = row * (plan.width - 1) + l - 1;
        expectBinomial(aggregator.counts[entry]!, N, 1 / entries);
        let parity = 0;
        for (let x = l & y; x; x &= x - 1) parity ^= 1;
        expectBinomial(aggregator.minus[entry]!, aggregator.counts[entry]!, parity === 1 ? p : 1 - p);
      }
    }
  });
});
