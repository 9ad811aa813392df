import type { Rng } from "@calm-ldp/random";
import type { OracleCore } from "./api.js";
import { malformed } from "./errors.js";
import { simulateSupportPerCell } from "./simulate.js";
import { breakHalfWordTie, halfWordBernoulli, WordBuffer } from "./words.js";

/**
 * @internal The unary-encoding core shared by OUE, SUE and the adaptive oracle:
 * the one-hot vector of the value, its 1 kept with probability `p`, every 0 set
 * with probability `q`, bits independent. Report: a bitset of ceil(D/32) words
 * (bit x of word x >> 5 is coordinate x; bits past D are zero).
 *
 * Client kernel: every coordinate gets its own 16-bit uniform (two per word,
 * ceil(D/2) words per user), compared branch-free with an integer threshold;
 * ties (probability 2^-16 per coordinate) are refined exactly. The true
 * coordinate is then *recomputed* from its own uniform with p's threshold, so it
 * is set or reset: forgetting the reset is the historical bug the audit catches.
 * Server kernel: iterate the set bits of each report, O(set bits).
 */
export function unaryCore(
  id: string,
  mechanism: string,
  eps: number,
  domain: number,
  p: number,
  q: number,
): OracleCore<Uint32Array> {
  const stride = (domain + 31) >>> 5;
  const halfWords = (domain + 1) >>> 1;
  const tailBits = domain & 31;
  const padMask = tailBits === 0 ? 0 : ~((1 << tailBits) - 1);
  const one = halfWordBernoulli(p);
  const zero = halfWordBernoulli(q);
  const zeroThreshold = zero.threshold;
  const buffer = new WordBuffer();

  const checkWords = (words: Uint32Array, offset: number): string | undefined =>
    (words[offset + stride - 1]! & padMask) === 0 ? undefined : `bits at or beyond D = ${domain} are set`;

  return {
    id,
    mechanism,
    eps,
    domain,
    p,
    q,
    stride,

    perturbInto(values: ArrayLike<number>, start: number, end: number, out: Uint32Array, rng: Rng): void {
      const count = end - start;
      const random = buffer.draw(rng, halfWords * count);
      for (let i = 0; i < count; i++) {
        const base = i * halfWords;
        const outBase = i * stride;
        let ties = 0;
        for (let w = 0; w < stride; w++) {
          let bits = 0;
          const firstHalf = base + 16 * w;
          const halves = Math.min(16, halfWords - 16 * w);
          for (let h = 0; h < halves; h++) {
            const u = random[firstHalf + h]!;
            const lo = u & 0xffff;
            const hi = u >>> 16;
            bits |=
              (((lo - zeroThreshold) >>> 31) << (2 * h)) | (((hi - zeroThreshold) >>> 31) << (2 * h + 1));
            ties |= (((lo ^ zeroThreshold) - 1) >>> 31) | (((hi ^ zeroThreshold) - 1) >>> 31);
          }
          out[outBase + w] = bits;
        }
        const value = values[start + i]!;
        if (ties !== 0)
          resolveTies(random, base, out, outBase, domain, value, zeroThreshold, zero.remainder, rng);
        // The true coordinate: recompute from its own uniform with p's threshold (set OR reset).
        const word = random[base + (value >>> 1)]!;
        const half = (value & 1) === 0 ? word & 0xffff : word >>> 16;
        const bit =
          half < one.threshold ? 1 : half === one.threshold ? breakHalfWordTie(rng, one.remainder) : 0;
        const index = outBase + (value >>> 5);
        const mask = 1 << (value & 31);
        out[index] = bit === 1 ? out[index]! | mask : out[index]! & ~mask;
        if (padMask !== 0) out[outBase + stride - 1] = out[outBase + stride - 1]! & ~padMask;
      }
    },

    toWords(report: Uint32Array, out: Uint32Array, offset: number): void {
      if (!(report instanceof Uint32Array) || report.length !== stride) {
        malformed(`${id}.toWords`, "type", `a ${id} report is a Uint32Array bitset of ${stride} words`);
      }
      out.set(report, offset);
    },

    fromWords: (words: Uint32Array, offset: number): Uint32Array => words.slice(offset, offset + stride),

    checkWords,

    supportsAt: (words: Uint32Array, offset: number, value: number): boolean =>
      ((words[offset + (value >>> 5)]! >>> (value & 31)) & 1) === 1,

    firstInvalid(words: Uint32Array, count: number): number {
      if (padMask === 0) return -1;
      for (let i = 0, last = stride - 1; i < count; i++, last += stride)
        if ((words[last]! & padMask) !== 0) return i;
      return -1;
    },

    accumulate(words: Uint32Array, count: number, tally: Float64Array): void {
      accumulateBitsets(words, count, stride, tally);
    },

    /** Joint and exact: bits are independent, so C(x) = Binomial(N_x, p) + Binomial(N - N_x, q) independently (ALGORITHMS.md §2). */
    simulateCounts(trueCounts: ArrayLike<number>, rng: Rng, out: Float64Array): void {
      let total = 0;
      for (let x = 0; x < domain; x++) total += trueCounts[x]!;
      simulateSupportPerCell(trueCounts, total, p, q, rng, out);
    },
    simulation: "joint",

    privacyLaw: () => ({
      kind: "independent-bits",
      bits: domain,
      probabilities(value: number, out: Float64Array): Float64Array {
        out.fill(q);
        out[value] = p;
        return out;
      },
    }),
  };
}

/** Re-decide every non-true coordinate whose 16-bit uniform tied q's threshold. Rare: ~D / 65536 per user. */
function resolveTies(
  random: Uint32Array,
  base: number,
  out: Uint32Array,
  outBase: number,
  domain: number,
  value: number,
  threshold: number,
  remainder: number,
  rng: Rng,
): void {
  for (let x = 0; x < domain; x++) {
    if (x === value) continue;
    const word = random[base + (x >>> 1)]!;
    const half = (x & 1) === 0 ? word & 0xffff : word >>> 16;
    if (half !== threshold) continue;
    if (breakHalfWordTie(rng, remainder) === 1) out[outBase + (x >>> 5)]! |= 1 << (x & 31);
  }
}

/** @internal Add every set bit of `count` bitsets of `stride` words to `tally[bit index]`. O(words + set bits). */
export function accumulateBitsets(
  words: Uint32Array,
  count: number,
  stride: number,
  tally: Float64Array,
): void {
  for (let i = 0, offset = 0; i < count; i++, offset += stride) {
    for (let w = 0; w < stride; w++) {
      let bits = words[offset + w]!;
      const base = w << 5;
      while (bits !== 0) {
        const lowest = bits & -bits;
        tally[base + 31 - Math.clz32(lowest)]! += 1;
        bits ^= lowest;
      }
    }
  }
}
