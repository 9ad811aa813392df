import { describe, expect, it } from "vitest";
import { bernoulli, createBernoulli } from "./bernoulli.js";
import { binomial } from "./binomial.js";
import { discreteSampler } from "./discrete.js";
import { multinomial } from "./multinomial.js";
import { groupSizes, partition } from "./partition.js";
import { sampleWithoutReplacement } from "./sample.js";
import { seededRng } from "./seeded.js";
import { shuffle } from "./shuffle.js";
import { scriptedRng, zScore } from "./test-support.js";
import { uniformIntFromWord, uniformRejection } from "./uniform-from-word.js";
import { uniformInt, uniformIntSampler } from "./uniform-int.js";

// Statistical tolerance: |z| < 4.5 everywhere below. A correct sampler fails one
// such check with probability ~7e-6; the biases these tests target (modulo bias,
// wrong pmf) move z by tens or hundreds at these sample sizes.
const Z = 4.5;

function chiSquareZ(observed: ArrayLike<number>, expected: ArrayLike<number>): number {
  let chi = 0;
  let df = -1;
  for (let i = 0; i < observed.length; i++) {
    if (expected[i]! <= 0) continue;
    chi += (observed[i]! - expected[i]!) ** 2 / expected[i]!;
    df++;
  }
  return (chi - df) / Math.sqrt(2 * df);
}

describe("uniformInt", () => {
  it("rejects the words above the largest multiple of n (exact threshold)", () => {
    // n = 3: 2^32 mod 3 = 1, so the only rejected word is 2^32 - 1.
    expect(uniformInt(scriptedRng([0xffffffff, 5]), 3)).toBe(2);
    expect(uniformInt(scriptedRng([0xfffffffe]), 3)).toBe(0xfffffffe % 3);
    const sampler = uniformIntSampler(3);
    expect(sampler(scriptedRng([0xffffffff, 0xffffffff, 4]))).toBe(1);
  });

  it("is unbiased for a non-power-of-two range where modulo would be badly biased", () => {
    // n = 3 * 2^30: plain `word % n` would put half of the mass below 2^30 instead of a third.
    const rng = seededRng(11);
    const n = 3 * 2 ** 30;
    const draws = 100_000;
    let below = 0;
    for (let i = 0; i < draws; i++) if (uniformInt(rng, n) < 2 ** 30) below++;
    expect(Math.abs(zScore(below / draws, 1 / 3, (1 / 3) * (2 / 3), draws))).toBeLessThan(Z);
  });

  it("is uniform over 7 values (chi-square) and over a range above 2^32", () => {
    const rng = seededRng(12);
    const counts = new Float64Array(7);
    const draws = 70_000;
    for (let i = 0; i < draws; i++) counts[uniformInt(rng, 7)]!++;
    expect(Math.abs(chiSquareZ(counts, new Float64Array(7).fill(draws / 7)))).toBeLessThan(Z);
    const big = 3 * 2 ** 40;
    let sum = 0;
    for (let i = 0; i < 20_000; i++) {
      const x = uniformInt(rng, big);
      expect(x >= 0 && x < big && Number.isInteger(x)).toBe(true);
      sum += x / big;
    }
    expect(Math.abs(zScore(sum / 20_000, 0.5, 1 / 12, 20_000))).toBeLessThan(Z);
  });

  it("names bad ranges", () => {
    expect(() => uniformInt(seededRng(1), 0)).toThrow(/uniformInt: n must be a safe integer >= 1 \(got 0\)/);
    expect(() => uniformIntSampler(2 ** 33)).toThrow(/uniformIntSampler/);
  });
});

describe("bernoulli (exact thresholds)", () => {
  it("p = 0 is never true and p = 1 always true, whatever the words", () => {
    expect(bernoulli(scriptedRng([0, 0, 0]), 0)).toBe(false);
    expect(bernoulli(scriptedRng([]), 1)).toBe(true);
    expect(createBernoulli(1).sample(scriptedRng([0xffffffff]))).toBe(true);
    expect(createBernoulli(0).sample(scriptedRng([0]))).toBe(false);
  });

  it("resolves ties on the exact remainder for tiny p", () => {
    // p = 2^-60: first threshold 0; a tie (word 0) continues with 2^-28, whose threshold is 16.
    const p = 2 ** -60;
    expect(bernoulli(scriptedRng([0, 15]), p)).toBe(true);
    expect(bernoulli(scriptedRng([0, 16]), p)).toBe(false); // tie with remainder 0: U >= p
    expect(bernoulli(scriptedRng([1]), p)).toBe(false);
    expect(createBernoulli(p).sample(scriptedRng([0, 15]))).toBe(true);
  });

  it("p = 1 - 2^-53 fails on exactly one path of probability 2^-53", () => {
    const p = 1 - 2 ** -53;
    const sampler = createBernoulli(p);
    expect(sampler.threshold).toBe(2 ** 32 - 1);
    expect(sampler.sample(scriptedRng([0xfffffffe]))).toBe(true);
    // Tie, then the remainder 1 - 2^-21 has threshold 2^32 - 2^11 and no further remainder.
    expect(sampler.sample(scriptedRng([0xffffffff, 2 ** 32 - 2 ** 11 - 1]))).toBe(true);
    expect(sampler.sample(scriptedRng([0xffffffff, 2 ** 32 - 2 ** 11]))).toBe(false);
    expect(bernoulli(scriptedRng([0xffffffff, 0xffffffff]), p)).toBe(false);
  });

  it("has the right frequency for p = 0.3 and agrees with createBernoulli on the same words", () => {
    const rng = seededRng(3);
    const draws = 100_000;
    let hits = 0;
    for (let i = 0; i < draws; i++) if (bernoulli(rng, 0.3)) hits++;
    expect(Math.abs(zScore(hits / draws, 0.3, 0.21, draws))).toBeLessThan(Z);
    const a = seededRng(4);
    const b = seededRng(4);
    const sampler = createBernoulli(0.123456789);
    for (let i = 0; i < 1000; i++) expect(sampler.sample(a)).toBe(bernoulli(b, 0.123456789));
  });

  it("rejects probabilities outside [0, 1]", () => {
    expect(() => bernoulli(seededRng(1), 1.5)).toThrow(/bernoulli: p must be a probability/);
    expect(() => createBernoulli(Number.NaN)).toThrow(/createBernoulli/);
  });
});

describe("binomial", () => {
  const cases: Array<[number, number]> = [
    [10, 0.3], // inversion
    [1000, 0.01], // inversion, small p
    [200, 0.3], // BTPE, mean 60
    [1_000_000, 0.3], // BTPE
    [100, 0.9], // reflected
    [2 ** 31, 0.5], // the largest n
    [2 ** 31, 1e-9], // huge n, tiny mean (inversion)
  ];
  for (const [n, p] of cases) {
    it(`n = ${n}, p = ${p}: mean and variance match n p and n p (1 - p)`, () => {
      const rng = seededRng(n % 1000);
      const draws = 20_000;
      let sum = 0;
      let sumSq = 0;
      for (let i = 0; i < draws; i++) {
        const x = binomial(rng, n, p);
        expect(Number.isInteger(x) && x >= 0 && x <= n).toBe(true);
        sum += x;
        sumSq += x * x;
      }
      const mean = sum / draws;
      const variance = n * p * (1 - p);
      expect(Math.abs(zScore(mean, n * p, variance, draws))).toBeLessThan(Z);
      // Sample variance: its standard error is about variance * sqrt(2 / draws) for near-normal counts.
      const sampleVariance = (sumSq - draws * mean * mean) / (draws - 1);
      expect(Math.abs(sampleVariance - variance) / (variance * Math.sqrt(2 / draws) + 1e-12)).toBeLessThan(
        Z + 1,
      );
    });
  }

  it("BTPE follows the exact pmf (chi-square over n = 300, p = 0.35)", () => {
    const n = 300;
    const p = 0.35;
    const draws = 200_000;
    const rng = seededRng(77);
    const counts = new Float64Array(n + 1);
    for (let i = 0; i < draws; i++) counts[binomial(rng, n, p)]!++;
    // Exact pmf by the recurrence from the mode, normalised.
    const pmf = new Float64Array(n + 1);
    let logFactorial = 0;
    const logFact = new Float64Array(n + 1);
    for (let i = 1; i <= n; i++) logFact[i] = logFactorial += Math.log(i);
    for (let x = 0; x <= n; x++)
      pmf[x] = Math.exp(
        logFact[n]! - logFact[x]! - logFact[n - x]! + x * Math.log(p) + (n - x) * Math.log1p(-p),
      );
    // Pool the tails so that every bin expects at least 20 draws.
    const observed: number[] = [];
    const expected: number[] = [];
    let o = 0;
    let e = 0;
    for (let x = 0; x <= n; x++) {
      o += counts[x]!;
      e += pmf[x]! * draws;
      if (e >= 20) {
        observed.push(o);
        expected.push(e);
        o = 0;
        e = 0;
      }
    }
    observed[observed.length - 1]! += o;
    expected[expected.length - 1]! += e;
    expect(Math.abs(chiSquareZ(observed, expected))).toBeLessThan(Z);
  });

  it("handles the edges and rejects bad parameters", () => {
    const rng = seededRng(1);
    expect(binomial(rng, 0, 0.5)).toBe(0);
    expect(binomial(rng, 50, 0)).toBe(0);
    expect(binomial(rng, 50, 1)).toBe(50);
    expect(() => binomial(rng, -1, 0.5)).toThrow(/binomial: n must be an integer/);
    expect(() => binomial(rng, 2 ** 32, 0.5)).toThrow(/2\^31/);
    expect(() => binomial(rng, 10, -0.1)).toThrow(/binomial: p must be a probability/);
  });
});

describe("multinomial, groupSizes, partition", () => {
  it("multinomial counts sum to n with the right cell means", () => {
    const rng = seededRng(5);
    const probs = [0.1, 0.2, 0.3, 0.4];
    const reps = 5000;
    const n = 1000;
    const sums = new Float64Array(4);
    for (let r = 0; r < reps; r++) {
      const counts = multinomial(rng, n, probs);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(n);
      for (let i = 0; i < 4; i++) sums[i]! += counts[i]!;
    }
    for (let i = 0; i < 4; i++) {
      expect(
        Math.abs(zScore(sums[i]! / reps, n * probs[i]!, n * probs[i]! * (1 - probs[i]!), reps)),
      ).toBeLessThan(Z);
    }
    expect(() => multinomial(rng, 10, [])).toThrow(/multinomial: probabilities must not be empty/);
    expect(() => multinomial(rng, 10, [1, -1])).toThrow(/probabilities\[1\]/);
    expect(Array.from(multinomial(rng, 10, [0, 1, 0]))).toEqual([0, 10, 0]);
  });

  it("groupSizes sums to n; balanced partition sizes differ by at most one", () => {
    const rng = seededRng(6);
    expect(groupSizes(rng, 12345, 17).reduce((a, b) => a + b, 0)).toBe(12345);
    const groups = partition(rng, 1003, 10, { balanced: true });
    const sizes = new Uint32Array(10);
    for (const g of groups) sizes[g]!++;
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
  });

  it("independent partition is uniform over groups (chi-square)", () => {
    const groups = partition(seededRng(8), 60_000, 6);
    const sizes = new Float64Array(6);
    for (const g of groups) sizes[g]!++;
    expect(Math.abs(chiSquareZ(sizes, new Float64Array(6).fill(10_000)))).toBeLessThan(Z);
  });
});

describe("shuffle and sampleWithoutReplacement", () => {
  it("shuffle makes all 6 permutations of 3 items equally likely", () => {
    const rng = seededRng(10);
    const counts = new Map<string, number>();
    const draws = 60_000;
    for (let i = 0; i < draws; i++) {
      const key = shuffle(rng, [0, 1, 2]).join("");
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    expect(counts.size).toBe(6);
    expect(Math.abs(chiSquareZ([...counts.values()], new Array(6).fill(draws / 6)))).toBeLessThan(Z);
  });

  it("sampleWithoutReplacement gives k sorted distinct values, each included w.p. k/n", () => {
    const rng = seededRng(13);
    const n = 20;
    const k = 5;
    const reps = 20_000;
    const hits = new Float64Array(n);
    for (let r = 0; r < reps; r++) {
      const sample = sampleWithoutReplacement(rng, n, k);
      expect(sample.length).toBe(k);
      for (let i = 1; i < k; i++) expect(sample[i]! > sample[i - 1]!).toBe(true);
      for (const x of sample) hits[x]!++;
    }
    const p = k / n;
    for (let i = 0; i < n; i++)
      expect(Math.abs(zScore(hits[i]! / reps, p, p * (1 - p), reps))).toBeLessThan(Z);
    expect(() => sampleWithoutReplacement(rng, 3, 4)).toThrow(/k must be an integer in \[0, n = 3\]/);
  });
});

describe("discreteSampler", () => {
  it("draws indices in proportion to their weights (chi-square)", () => {
    const weights = [5, 0, 1, 3, 1];
    const draw = discreteSampler(weights);
    const rng = seededRng(14);
    const draws = 100_000;
    const counts = new Float64Array(weights.length);
    for (let i = 0; i < draws; i++) counts[draw(rng)]!++;
    expect(counts[1]).toBe(0);
    const expected = weights.map((w) => (w / 10) * draws);
    expect(Math.abs(chiSquareZ(counts, expected))).toBeLessThan(Z);
    expect(() => discreteSampler([0, 0])).toThrow(/positive sum/);
  });
});

describe("uniformIntFromWord", () => {
  it("rejects exactly the low parts below 2^32 mod range (multiply-high path)", () => {
    // range 3: reject = 2^32 mod 3 = 1. u = 0 gives prod 0, low part 0 < 1: a fresh word is drawn.
    expect(uniformRejection(3)).toBe(1);
    expect(uniformIntFromWord(0, 3, 1, scriptedRng([0x80000000]))).toBe(1);
    expect(uniformIntFromWord(0xffffffff, 3, 1, scriptedRng([]))).toBe(2);
  });

  it("is uniform over a non-power-of-two range on both paths (chi-square)", () => {
    for (const range of [7, 3_000_001]) {
      const rng = seededRng(range);
      const reject = uniformRejection(range);
      const bins = 7;
      const counts = new Float64Array(bins);
      const draws = 70_000;
      for (let i = 0; i < draws; i++)
        counts[Math.floor((uniformIntFromWord(rng.nextUint32(), range, reject, rng) * bins) / range)]!++;
      const expected = Array.from(
        { length: bins },
        (_, b) => (Math.ceil(((b + 1) * range) / bins) - Math.ceil((b * range) / bins)) * (draws / range),
      );
      expect(Math.abs(chiSquareZ(counts, expected))).toBeLessThan(Z);
    }
  });
});
