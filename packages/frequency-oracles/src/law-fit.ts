import type { Rng } from "@calm-ldp/random";
import type { PrivacyLaw } from "./api.js";
import { regularizedGamma } from "./beta.js";
import { membershipProbability } from "./law-support.js";
import { popcount32 } from "./words.js";

/** One goodness-of-fit test: its name, p-value under the declared law, and what was seen. */
export interface FitStatistic {
  readonly name: string;
  readonly pValue: number;
  readonly detail: string;
}

/** Expected count below which categorical cells are pooled into one (the chi-square approximation needs ~5). */
const MIN_EXPECTED = 5;
/** Bins of the seed-word and probability-integral-transform histograms of public-seed laws. */
const BINS = 16;

/** Two-sided p-value of a standard normal z: `Q(1/2, z^2 / 2)`. O(1). */
export function normalTwoSided(z: number): number {
  if (Number.isNaN(z)) return 0;
  return regularizedGamma(0.5, (z * z) / 2)[1];
}

/** Upper-tail p-value of a chi-square statistic with `dof` degrees of freedom: `Q(dof/2, x/2)`. O(1). */
export function chiSquareTail(x: number, dof: number): number {
  if (dof <= 0) return 1;
  return regularizedGamma(dof / 2, x / 2)[1];
}

/**
 * Binomial z-test of `hits` in `trials` against probability `probability`; a
 * probability of 0 or 1 must be matched exactly (p-value 0 otherwise).
 */
function binomialTest(name: string, hits: number, trials: number, probability: number): FitStatistic {
  const expected = trials * probability;
  const variance = trials * probability * (1 - probability);
  const pValue =
    variance === 0 ? (hits === expected ? 1 : 0) : normalTwoSided((hits - expected) / Math.sqrt(variance));
  return { name, pValue, detail: `${hits} of ${trials}, expected ${expected.toPrecision(6)}` };
}

/**
 * Pearson's chi-square of `observed` against `n * probabilities`, pooling the cells
 * with expected count below 5 into one; any count in a cell of probability 0 (or
 * in `observed[probabilities.length]`, the out-of-range cell) gives p-value 0. O(cells).
 */
function chiSquareTest(
  name: string,
  observed: Float64Array,
  probabilities: Float64Array,
  n: number,
): FitStatistic {
  let statistic = 0;
  let cells = 0;
  let pooledObserved = 0;
  let pooledExpected = 0;
  let impossible = observed[probabilities.length] ?? 0;
  for (let y = 0; y < probabilities.length; y++) {
    const expected = n * probabilities[y]!;
    if (probabilities[y] === 0) impossible += observed[y]!;
    else if (expected < MIN_EXPECTED) {
      pooledObserved += observed[y]!;
      pooledExpected += expected;
    } else {
      statistic += (observed[y]! - expected) ** 2 / expected;
      cells += 1;
    }
  }
  if (impossible > 0) return { name, pValue: 0, detail: `${impossible} outputs the law gives probability 0` };
  if (pooledExpected > 0) {
    statistic += (pooledObserved - pooledExpected) ** 2 / pooledExpected;
    cells += 1;
  }
  const pValue = chiSquareTail(statistic, cells - 1);
  return {
    name,
    pValue,
    detail: `chi-square ${statistic.toPrecision(6)} on ${cells - 1} degrees of freedom`,
  };
}

/**
 * Tallies the packed reports of one input value under one declared law and turns
 * them into goodness-of-fit tests (../../../docs/algorithms.md#frequency-oracles):
 * - categorical: Pearson's chi-square of the one-word outputs against the law's row;
 * - independent bits: a binomial z-test per bit, and a z-test of the variance of the
 *   number of set bits (independence: `sum p_j (1 - p_j)`, with the fourth cumulant
 *   in its standard error);
 * - membership: every report has exactly k elements, and a binomial z-test per element;
 * - public seed: chi-square of the seed word's top 4 bits (uniform), and of the
 *   randomized probability-integral transform of each output given its seed, with
 *   outputs ordered by decreasing probability (uniform on [0, 1) under the law), 16 bins.
 * Cost per report: O(1) categorical, O(D) bit laws, O(g) public seed.
 */
export class LawTally {
  readonly #law: PrivacyLaw;
  readonly #value: number;
  readonly #row: Float64Array;
  readonly #counts: Float64Array;
  readonly #rng: Rng;
  #reports = 0;
  #sizeSum = 0;
  #sizeSquares = 0;
  #wrongSize = 0;

  constructor(law: PrivacyLaw, domain: number, value: number, rng: Rng) {
    this.#law = law;
    this.#value = value;
    this.#rng = rng;
    switch (law.kind) {
      case "categorical":
        this.#row = law.probabilities(value, new Float64Array(law.outputs));
        this.#counts = new Float64Array(law.outputs + 1);
        break;
      case "independent-bits":
        this.#row = law.probabilities(value, new Float64Array(law.bits));
        this.#counts = new Float64Array(law.bits);
        break;
      case "membership":
        this.#row = new Float64Array(domain);
        this.#counts = new Float64Array(domain);
        break;
      case "public-seed":
        this.#row = new Float64Array(law.outputs);
        this.#counts = new Float64Array(2 * BINS + 1);
        break;
    }
  }

  /** Add `count` packed reports of `stride` words (all drawn for this tally's input value). */
  add(words: Uint32Array, count: number, stride: number): void {
    this.#reports += count;
    const law = this.#law;
    const counts = this.#counts;
    if (law.kind === "categorical") {
      const outputs = law.outputs;
      for (let i = 0, o = 0; i < count; i++, o += stride) {
        const y = words[o]!;
        counts[Math.min(y, outputs)]! += 1;
      }
    } else if (law.kind === "public-seed") {
      this.#addSeeded(law, words, count, stride);
    } else {
      const bits = counts.length;
      for (let i = 0, o = 0; i < count; i++, o += stride) {
        let size = 0;
        for (let w = 0; w < stride; w++) size += popcount32(words[o + w]!);
        for (let j = 0; j < bits; j++) counts[j]! += (words[o + (j >>> 5)]! >>> (j & 31)) & 1;
        this.#sizeSum += size;
        this.#sizeSquares += size * size;
        if (law.kind === "membership" && size !== law.size) this.#wrongSize += 1;
      }
    }
  }

  #addSeeded(
    law: PrivacyLaw & { kind: "public-seed" },
    words: Uint32Array,
    count: number,
    stride: number,
  ): void {
    const counts = this.#counts;
    const row = this.#row;
    for (let i = 0, o = 0; i < count; i++, o += stride) {
      const seed = words[o]!;
      const y = words[o + 1]!;
      counts[seed >>> 28]! += 1;
      law.given(this.#value, seed, row);
      if (y >= row.length || row[y] === 0) {
        counts[2 * BINS]! += 1;
        continue;
      }
      const own = row[y]!;
      let before = 0;
      for (let z = 0; z < row.length; z++) if (row[z]! > own || (row[z] === own && z < y)) before += row[z]!;
      const u = before + own * (this.#rng.nextUint32() / 4294967296);
      counts[BINS + Math.min(BINS - 1, Math.floor(u * BINS))]! += 1;
    }
  }

  /** The tests of everything added so far, named `<name>` with the input value. */
  tests(): FitStatistic[] {
    const n = this.#reports;
    const law = this.#law;
    const x = this.#value;
    const counts = this.#counts;
    if (n === 0) return [];
    switch (law.kind) {
      case "categorical":
        return [chiSquareTest(`outputs of input ${x} (chi-square)`, counts, this.#row, n)];
      case "public-seed": {
        const uniform = new Float64Array(BINS).fill(1 / BINS);
        const pit = counts.subarray(BINS, 2 * BINS + 1);
        return [
          chiSquareTest(
            `seed words of input ${x} (top 4 bits uniform)`,
            counts.subarray(0, BINS),
            uniform,
            n,
          ),
          chiSquareTest(
            `outputs given the seed, input ${x} (probability-integral transform)`,
            pit,
            uniform,
            n,
          ),
        ];
      }
      case "independent-bits":
        return [...this.#bitTests(this.#row, n), this.#sizeVarianceTest(this.#row, n)];
      case "membership": {
        const member = membershipProbability(law.domain, law.size, law.logProbabilityIfMember);
        const row = this.#row.fill((law.size - member) / (law.domain - 1));
        row[x] = member;
        return [
          {
            name: `subset size of input ${x}`,
            pValue: this.#wrongSize === 0 ? 1 : 0,
            detail: `${this.#wrongSize} reports without exactly k = ${law.size} elements`,
          },
          ...this.#bitTests(row, n),
        ];
      }
    }
  }

  #bitTests(row: Float64Array, n: number): FitStatistic[] {
    const x = this.#value;
    return Array.from(row, (probability, j) =>
      binomialTest(`bit ${j} of input ${x}`, this.#counts[j]!, n, probability),
    );
  }

  /** Independent bits: Var(set bits) = sum p(1-p); Var(sample variance) ~ (k4 + 2 s^4) / n. */
  #sizeVarianceTest(row: Float64Array, n: number): FitStatistic {
    let variance = 0;
    let cumulant4 = 0;
    for (const probability of row) {
      const v = probability * (1 - probability);
      variance += v;
      cumulant4 += v * (1 - 6 * v);
    }
    const x = this.#value;
    const mean = this.#sizeSum / n;
    const sample = (this.#sizeSquares - n * mean * mean) / (n - 1);
    const name = `variance of the number of set bits, input ${x}`;
    const spread = (cumulant4 + 2 * variance * variance) / n;
    if (!(spread > 0) || n < 2) return { name, pValue: 1, detail: "not testable" };
    const z = (sample - variance) / Math.sqrt(spread);
    return {
      name,
      pValue: normalTwoSided(z),
      detail: `${sample.toPrecision(6)} vs ${variance.toPrecision(6)}`,
    };
  }
}
