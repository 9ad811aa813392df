import type { Rng } from "./api.js";
import { fail } from "./errors.js";

const TWO_POW_32 = 2 ** 32;

function checkProbability(where: string, p: number): void {
  if (!(p >= 0 && p <= 1)) fail(where, "p must be a probability in [0, 1]", p);
}

/**
 * Exact Bernoulli(p) for any double p in [0, 1]: returns `U < p` for a uniform
 * real U drawn lazily 32 bits at a time. Each round compares a uniform word u with
 * `t = floor(p * 2^32)` (exact: scaling by a power of two is exact); u < t is
 * success, u > t failure, and on a tie (probability 2^-32) the comparison continues
 * on the exact remainder `p * 2^32 - t`. A double has at most 1074 fractional
 * bits, so the loop ends; expected words per draw 1 + 2^-32. No rounding anywhere.
 */
export function bernoulli(rng: Rng, p: number): boolean {
  checkProbability("bernoulli", p);
  return bernoulliUnchecked(rng, p);
}

function bernoulliUnchecked(rng: Rng, p: number): boolean {
  let fraction = p;
  for (;;) {
    if (fraction === 0) return false;
    const scaled = fraction * TWO_POW_32;
    if (scaled >= TWO_POW_32) return true; // p = 1
    const threshold = Math.floor(scaled);
    const u = rng.nextUint32();
    if (u < threshold) return true;
    if (u > threshold) return false;
    fraction = scaled - threshold;
  }
}

/** A precomputed exact Bernoulli sampler (see {@link createBernoulli}). */
export interface BernoulliSampler {
  /** The probability of `true`. */
  readonly p: number;
  /** `floor(p * 2^32)`: a word below it is a success outright. */
  readonly threshold: number;
  /** One exact draw. */
  sample(rng: Rng): boolean;
  /**
   * Exact draw from an already drawn word `u` (for batch kernels that fill a word
   * buffer first); only a tie `u === threshold` draws more words from `rng`.
   */
  fromWord(u: number, rng: Rng): boolean;
}

/**
 * Exact Bernoulli(p) with the first-round threshold precomputed, for hot loops
 * (client perturbation). Same distribution as {@link bernoulli}; one word per draw
 * except on a tie.
 */
export function createBernoulli(p: number): BernoulliSampler {
  checkProbability("createBernoulli", p);
  const scaled = p * TWO_POW_32;
  const threshold = scaled >= TWO_POW_32 ? TWO_POW_32 : Math.floor(scaled);
  const remainder = scaled >= TWO_POW_32 ? 0 : scaled - threshold;
  const fromWord = (u: number, rng: Rng): boolean => {
    if (u < threshold) return true;
    if (u > threshold || remainder === 0) return false;
    return bernoulliUnchecked(rng, remainder);
  };
  return {
    p,
    threshold,
    sample: (rng) => fromWord(rng.nextUint32(), rng),
    fromWord,
  };
}
