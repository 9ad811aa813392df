import { createBernoulli, type Rng } from "@calm-ldp/random";
import type { FrequencyOracle, SubsetSelectionOptions } from "./api.js";
import { defineOracle } from "./define-oracle.js";
import { malformed } from "./errors.js";
import { checkInteger, checkOracleOptions } from "./params.js";
import { accumulateBitsets } from "./unary.js";
import { boundedFromWord, popcount32, rejectionCount, WordBuffer } from "./words.js";

/** Largest D for Subset Selection (reports are D-bit bitsets). */
export const MAX_SS_DOMAIN = 2 ** 20;

/**
 * The probabilities of Subset Selection with subset size k (Ye and Barg, IEEE
 * Trans. IT 2018; Wang et al. 2016): a subset containing the value has weight
 * e^eps, any other k-subset weight 1, so `p = k e^eps / (k e^eps + D - k)` =
 * Pr[value in S] and `q = (k - p) / (D - 1)` = Pr[x in S] for x != value. O(1).
 */
export function subsetSelectionProbabilities(
  eps: number,
  domain: number,
  k: number,
): { p: number; q: number } {
  const weighted = k * Math.exp(eps);
  const p = weighted / (weighted + domain - k);
  return { p, q: (k - p) / (domain - 1) };
}

/**
 * The default subset size: among floor and ceil of D / (e^eps + 1), clamped to
 * [1, D - 1], the one with the smaller variance q(1-q)/(p-q)^2. O(1).
 */
export function defaultSubsetSize(eps: number, domain: number): number {
  const ideal = domain / (Math.exp(eps) + 1);
  const clamp = (k: number) => Math.min(domain - 1, Math.max(1, k));
  const candidates = [clamp(Math.floor(ideal)), clamp(Math.ceil(ideal))];
  let best = candidates[0]!;
  let bestVariance = Number.POSITIVE_INFINITY;
  for (const k of candidates) {
    const { p, q } = subsetSelectionProbabilities(eps, domain, k);
    const variance = (q * (1 - q)) / ((p - q) * (p - q));
    if (variance < bestVariance) {
      bestVariance = variance;
      best = k;
    }
  }
  return best;
}

/**
 * Subset Selection (SS): the client reports a k-subset of [D]: with probability
 * p it contains the value plus k - 1 others chosen uniformly, else k values chosen
 * uniformly among the D - 1 others. Every subset containing v has probability
 * e^eps / Z, every other 1 / Z (Z = C(D-1, k-1) e^eps + C(D-1, k)), so the ratio
 * is exactly e^eps. Report: a bitset of ceil(D/32) words with k bits set.
 * Variance `q(1-q) / (n (p - q)^2)`; best for mid-range eps.
 *
 * Client O(k) per user: Floyd's algorithm over the D - 1 others with exact
 * multiply-high uniform draws (1 + k words). Server O(k) per report.
 * Count-level simulation is per-cell (the cells of one report are negatively
 * correlated: every report has exactly k bits).
 */
export function createSs(options: SubsetSelectionOptions): FrequencyOracle<Uint32Array> {
  const { eps, domain } = checkOracleOptions("createSs", options, MAX_SS_DOMAIN);
  const k =
    options.k === undefined
      ? defaultSubsetSize(eps, domain)
      : checkInteger("createSs", "k", options.k, 1, domain - 1);
  const { p, q } = subsetSelectionProbabilities(eps, domain, k);
  const include = createBernoulli(p);
  const includeThreshold = include.threshold;
  const stride = (domain + 31) >>> 5;
  const tailBits = domain & 31;
  const padMask = tailBits === 0 ? 0 : ~((1 << tailBits) - 1);
  const others = domain - 1;
  const rejects = new Float64Array(domain + 1);
  for (let range = 1; range <= domain; range++) rejects[range] = rejectionCount(range);
  const buffer = new WordBuffer();
  const perUser = 1 + k;

  const checkWords = (words: Uint32Array, offset: number): string | undefined => {
    if ((words[offset + stride - 1]! & padMask) !== 0) return `bits at or beyond D = ${domain} are set`;
    let size = 0;
    for (let w = 0; w < stride; w++) size += popcount32(words[offset + w]!);
    return size === k ? undefined : `subset has ${size} elements, not k = ${k}`;
  };

  const logBinomial = (n: number, r: number): number => {
    let sum = 0;
    for (let i = 1; i <= r; i++) sum += Math.log((n - r + i) / i);
    return sum;
  };

  return defineOracle<Uint32Array>({
    id: "ss",
    mechanism: "ss",
    eps,
    domain,
    p,
    q,
    stride,
    parameters: { k },

    perturbInto(values: ArrayLike<number>, start: number, end: number, out: Uint32Array, rng: Rng): void {
      const count = end - start;
      const words = buffer.draw(rng, perUser * count);
      out.fill(0, 0, count * stride);
      for (let i = 0; i < count; i++) {
        const value = values[start + i]!;
        const outBase = i * stride;
        const u = words[perUser * i]!;
        let draws = k;
        if (u < includeThreshold || (u === includeThreshold && include.fromWord(u, rng))) {
          out[outBase + (value >>> 5)]! |= 1 << (value & 31);
          draws = k - 1;
        }
        // Floyd: for j = L - m .. L - 1, pick t uniform in [0, j]; take t, or j if t is taken.
        // Index i of the L = D - 1 others maps to value i (i < v) or i + 1 (i >= v).
        let next = perUser * i + 1;
        for (let j = others - draws; j < others; j++) {
          const t = boundedFromWord(words[next++]!, j + 1, rejects[j + 1]!, rng);
          const tValue = t < value ? t : t + 1;
          const word = outBase + (tValue >>> 5);
          const bit = 1 << (tValue & 31);
          if ((out[word]! & bit) === 0) {
            out[word]! |= bit;
          } else {
            const jValue = j < value ? j : j + 1;
            out[outBase + (jValue >>> 5)]! |= 1 << (jValue & 31);
          }
        }
      }
    },

    toWords(report: Uint32Array, out: Uint32Array, offset: number): void {
      if (!(report instanceof Uint32Array) || report.length !== stride) {
        malformed("ss.toWords", "type", `an ss report is a Uint32Array bitset of ${stride} words`);
      }
      out.set(report, offset);
    },

    fromWords: (words: Uint32Array, offset: number): Uint32Array => words.slice(offset, offset + stride),

    checkWords,

    supportsAt: (words: Uint32Array, offset: number, value: number): boolean =>
      ((words[offset + (value >>> 5)]! >>> (value & 31)) & 1) === 1,

    accumulate(words: Uint32Array, count: number, tally: Float64Array): void {
      accumulateBitsets(words, count, stride, tally);
    },

    privacyLaw: () => {
      const withValue = logBinomial(others, k - 1) + eps;
      const without = logBinomial(others, k);
      const top = Math.max(withValue, without);
      const logZ = top + Math.log(Math.exp(withValue - top) + Math.exp(without - top));
      return {
        kind: "membership",
        domain,
        size: k,
        logProbabilityIfMember: eps - logZ,
        logProbabilityIfNot: -logZ,
      };
    },
  });
}
