import { type Rng, seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import type { FrequencyOracle, OracleCore } from "./api.js";
import { clopperPearson, clopperPearsonLower, clopperPearsonUpper } from "./clopper-pearson.js";
import { defineOracle } from "./define-oracle.js";
import { empiricalAudit } from "./empirical-audit.js";
import { InvalidParameterError } from "./errors.js";
import { exactWorstLogRatio } from "./exact-privacy.js";
import { createOue } from "./oue.js";
import { createOracle, ORACLE_NAMES, oracleEntry } from "./registry.js";

/**
 * The deliberately broken oracle: unary encoding whose client starts from the
 * one-hot vector, sets every bit with probability q, then sets the true bit with
 * probability 1/2 *without resetting it* (an OR instead of an assignment). The
 * true bit is then 1 with probability (1 + q)/2, not 1/2; the worst output (a's bit
 * 1, b's bit 0) has ratio ((1+q)/2 / q) * ((1-q) / ((1-q)/2)), so at eps = 1 the
 * achieved eps is 1.551 (../../../docs/algorithms.md#frequency-oracles: the historical Python bug). Lives in
 * this test file only, never in the package.
 */
function brokenUnaryEncoding(eps: number, domain: number): FrequencyOracle<Uint32Array> {
  const sound = createOue({ eps, domain });
  const q = sound.q;
  const stride = (domain + 31) >>> 5;
  const threshold = (p: number) => Math.floor(p * 2 ** 32);
  const core: OracleCore<Uint32Array> = {
    id: "broken-ue",
    mechanism: "broken-ue",
    eps,
    domain,
    p: 0.5,
    q,
    stride,
    perturbInto(values: ArrayLike<number>, start: number, end: number, out: Uint32Array, rng: Rng): void {
      out.fill(0);
      for (let i = start; i < end; i++) {
        const base = (i - start) * stride;
        for (let x = 0; x < domain; x++)
          if (rng.nextUint32() < threshold(q)) out[base + (x >>> 5)]! |= 1 << (x & 31);
        const value = values[i]!;
        // BUG (on purpose): OR-ing the true bit keeps a 1 set by the q-draw above.
        if (rng.nextUint32() < threshold(0.5)) out[base + (value >>> 5)]! |= 1 << (value & 31);
      }
    },
    toWords: (report, out, offset) => out.set(report, offset),
    fromWords: (words, offset) => words.slice(offset, offset + stride),
    checkWords: () => undefined,
    supportsAt: (words, offset, value) => ((words[offset + (value >>> 5)]! >>> (value & 31)) & 1) === 1,
    // What the code above really does: the true bit is 1 w.p. 1/2 + q/2.
    privacyLaw: () => ({
      kind: "independent-bits",
      bits: domain,
      probabilities(value: number, out: Float64Array): Float64Array {
        out.fill(q);
        out[value] = 0.5 + q / 2;
        return out;
      },
    }),
  };
  return defineOracle(core);
}

describe("Clopper-Pearson bounds", () => {
  it("matches published values and closed forms", () => {
    // 5 of 10 at 95 %: [0.187086, 0.812914] (the textbook example).
    const interval = clopperPearson(5, 10, 0.95);
    expect(interval.lower).toBeCloseTo(0.187086, 5);
    expect(interval.upper).toBeCloseTo(0.812914, 5);
    // 0 of n: upper = 1 - (alpha)^(1/n); n of n: lower = alpha^(1/n).
    expect(clopperPearsonUpper(0, 100, 0.005)).toBeCloseTo(1 - 0.005 ** (1 / 100), 12);
    expect(clopperPearsonLower(100, 100, 0.005)).toBeCloseTo(0.005 ** (1 / 100), 12);
    expect(clopperPearsonLower(0, 100, 0.005)).toBe(0);
    expect(clopperPearsonUpper(100, 100, 0.005)).toBe(1);
  });

  it("stays accurate at a million trials (normal approximation as reference)", () => {
    const n = 1_000_000;
    const x = 41_000;
    const phat = x / n;
    const sd = Math.sqrt((phat * (1 - phat)) / n);
    // z_{0.9975} = 2.807; CP is slightly wider than Wald, within 2 % of the half-width here.
    const lower = clopperPearsonLower(x, n, 0.0025);
    const upper = clopperPearsonUpper(x, n, 0.0025);
    expect((phat - lower) / (2.807 * sd)).toBeGreaterThan(0.98);
    expect((phat - lower) / (2.807 * sd)).toBeLessThan(1.02);
    expect((upper - phat) / (2.807 * sd)).toBeGreaterThan(0.98);
    expect((upper - phat) / (2.807 * sd)).toBeLessThan(1.02);
  });

  it("covers the true proportion at its nominal rate (seeded simulation)", () => {
    // 2,000 intervals at 90 %: the number that miss is Binomial(2000, <= 0.1); CP is
    // conservative, so misses <= 200 + 5 sd (sd = 13.4) must hold.
    const rng = seededRng(7);
    let misses = 0;
    for (let trial = 0; trial < 2000; trial++) {
      let hits = 0;
      for (let i = 0; i < 50; i++) if (rng.nextUint32() < 0.3 * 2 ** 32) hits++;
      const { lower, upper } = clopperPearson(hits, 50, 0.9);
      if (!(lower <= 0.3 && 0.3 <= upper)) misses++;
    }
    expect(misses).toBeLessThan(200 + 5 * 13.4);
    expect(misses).toBeGreaterThan(0);
  });

  it("rejects invalid counts", () => {
    expect(() => clopperPearsonLower(11, 10, 0.05)).toThrow(InvalidParameterError);
    expect(() => clopperPearsonUpper(1, 0, 0.05)).toThrow(/trials must be an integer >= 1 \(got 0\)/);
    expect(() => clopperPearson(1, 10, 1)).toThrow(InvalidParameterError);
  });
});

describe("the deliberately broken unary encoding", () => {
  const broken = brokenUnaryEncoding(1, 16);

  it("fails the exact check: its real law has worst log-ratio 1.551 at eps = 1", () => {
    const q = 1 / (Math.E + 1);
    const pTrue = 0.5 + q / 2;
    const expected = Math.log(pTrue / q) + Math.log((1 - q) / (1 - pTrue));
    expect(exactWorstLogRatio(broken)).toBeCloseTo(expected, 12);
    expect(expected).toBeCloseTo(1.551, 3);
  });

  it("is caught by the empirical audit: 99% lower bound above eps", () => {
    // 100,000 reports per input: the event "supports a only" has P = 0.464 vs 0.098,
    // so the bound's standard error is ~0.01 and 1.55 - 1 = 0.55 is ~50 of them.
    const audit = empiricalAudit(broken, { samples: 100_000, rng: seededRng(1) });
    expect(audit.epsLower).toBeGreaterThan(1);
    expect(audit.epsLower).toBeGreaterThan(1.45);
    expect(audit.epsEstimate).toBeCloseTo(1.551, 1);
  });

  it("is caught with the CLI's default of 1e6 samples and the cryptographic source", () => {
    // Unseeded on purpose (the CLI's real source). At 1e6 reports the bound's standard
    // error is ~0.005, so 1.5 sits ~10 of them below the expected bound of ~1.54.
    const audit = empiricalAudit(broken, { samples: 1_000_000 });
    expect(audit.epsLower).toBeGreaterThan(1.5);
  });
});

describe("empiricalAudit", () => {
  it("gives a tight but valid bound for every correct built-in oracle", () => {
    // With 2e5 reports per input the bound sits within ~0.1 of eps when the oracle
    // uses its whole budget (all built-ins do, per the exact check); never above eps.
    for (const name of ORACLE_NAMES) {
      const oracle = createOracle(name, { eps: 1, domain: oracleEntry(name).fixedDomain ?? 16 });
      const audit = empiricalAudit(oracle, { samples: 200_000, rng: seededRng(11) });
      expect(audit.epsLower, name).toBeLessThanOrEqual(1);
      expect(audit.epsLower, name).toBeGreaterThan(0.85);
    }
  });

  it("audits any pair and reports the chosen event", () => {
    const oracle = createOracle("grr", { eps: 2, domain: 10 });
    const audit = empiricalAudit(oracle, { samples: 50_000, pair: [3, 7], rng: seededRng(2) });
    expect(audit.pair).toEqual([3, 7]);
    expect(audit.event.classes.length).toBeGreaterThan(0);
    expect(audit.hits[0]).toBeGreaterThan(audit.hits[1]);
    expect(audit.epsLower).toBeLessThanOrEqual(2);
    expect(audit.selectionSamples).toBe(12_500);
  });

  it("rejects bad options", () => {
    const oracle = createOracle("grr", { eps: 1, domain: 4 });
    expect(() => empiricalAudit(oracle, { pair: [1, 1] })).toThrow(/pair must be two different integers/);
    expect(() => empiricalAudit(oracle, { pair: [0, 4] })).toThrow(InvalidParameterError);
    expect(() => empiricalAudit(oracle, { samples: 10 })).toThrow(
      /samples must be an integer in \[100, 2\^31\] \(got 10\)/,
    );
    expect(() => empiricalAudit(oracle, { confidence: 1.5 })).toThrow(InvalidParameterError);
  });
});
