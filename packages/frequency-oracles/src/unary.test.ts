import { type Rng, seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { createOue } from "./oue.js";
import { createSue } from "./sue.js";
import { accumulateBitsets, byteBernoulli } from "./unary.js";

describe("unary-encoding client kernel", () => {
  it("byte thresholds add up to p exactly", () => {
    for (const p of [0.5, 1 / (Math.E + 1), 0.123456789, 1e-9, 1]) {
      const { threshold, remainder } = byteBernoulli(p);
      expect(Number.isInteger(threshold)).toBe(true);
      expect(remainder >= 0 && remainder < 1).toBe(true);
      expect((threshold + remainder) / 256).toBe(p);
    }
  });

  it("refines ties exactly: when every byte ties, each 0-bit is 1 with the remainder's probability", () => {
    // A source whose bulk words are all made of the tie byte; single draws (the tie
    // refinement) come from a seeded generator. 20,000 users x 40 non-true bits: the
    // fraction of ones must match the remainder within 5 standard errors.
    const oracle = createOue({ eps: 1, domain: 41 });
    const { threshold, remainder } = byteBernoulli(oracle.q);
    const inner = seededRng(3);
    const tieWord = (threshold * 0x01010101) >>> 0;
    const ties: Rng = {
      nextUint32: () => inner.nextUint32(),
      nextFloat: () => inner.nextFloat(),
      fill: (out) => out.fill(tieWord),
    };
    const users = 20_000;
    const batch = oracle.perturbBatch(new Uint32Array(users).fill(7), ties);
    let ones = 0;
    for (let i = 0; i < users; i++) {
      for (let x = 0; x < 41; x++) if (x !== 7 && oracle.supportsAt(batch.words, i * batch.stride, x)) ones++;
    }
    const trials = users * 40;
    const z = (ones / trials - remainder) / Math.sqrt((remainder * (1 - remainder)) / trials);
    expect(Math.abs(z)).toBeLessThan(5);
    // The true coordinate's byte (the tie byte, below 128) always keeps the 1 at p = 1/2.
    for (let i = 0; i < users; i++) expect(oracle.supportsAt(batch.words, i * batch.stride, 7)).toBe(true);
  });

  it("sets each bit with its own probability (seeded, per coordinate, SUE)", () => {
    // 100,000 users holding value 3 of D = 10: coordinate 3 is 1 w.p. p, the others w.p. q; |z| < 5.
    const oracle = createSue({ eps: 1.7, domain: 10 });
    const users = 100_000;
    const batch = oracle.perturbBatch(new Uint32Array(users).fill(3), seededRng(8));
    for (let x = 0; x < 10; x++) {
      let ones = 0;
      for (let i = 0; i < users; i++) if (oracle.supportsAt(batch.words, i * batch.stride, x)) ones++;
      const probability = x === 3 ? oracle.p : oracle.q;
      const z = (ones / users - probability) / Math.sqrt((probability * (1 - probability)) / users);
      expect(Math.abs(z), `coordinate ${x}`).toBeLessThan(5);
    }
  });
});

describe("accumulateBitsets (SWAR byte-lane counting)", () => {
  it("equals counting bit by bit, across lane flushes and a partial last word", () => {
    const rng = seededRng(12);
    const domain = 70;
    const stride = 3;
    const count = 1000; // four flushes of the 255-report lanes
    const words = rng.fill(new Uint32Array(count * stride));
    for (let i = 0; i < count; i++) words[i * stride + 2]! &= (1 << (domain - 64)) - 1;
    const tally = new Float64Array(domain).fill(1);
    accumulateBitsets(words, count, stride, tally);
    for (let x = 0; x < domain; x++) {
      let ones = 1;
      for (let i = 0; i < count; i++) ones += (words[i * stride + (x >>> 5)]! >>> (x & 31)) & 1;
      expect(tally[x], `bit ${x}`).toBe(ones);
    }
  });
});
