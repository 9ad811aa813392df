import { createBernoulli, type Rng } from "@calm-ldp/random";
import type { LocalHashReport, OracleCore } from "./api.js";
import { malformed } from "./errors.js";
import { bucketStart, fmix32, hashKey } from "./hash.js";
import { boundedFromWord, rejectionCount, WordBuffer } from "./words.js";

/** Seeds enumerated by the exact privacy check (the seed's law does not depend on the input). */
const LAW_SEEDS = 64;
/** The server kernel counts in int32 and flushes to the float tally at least this often (reports). */
const FLUSH_EVERY = 2 ** 30;

/**
 * @internal The local-hashing core (OLH, BLH; Wang et al., USENIX Security 2017),
 * ../../../docs/algorithms.md#frequency-oracles: the client draws a uniform 32-bit seed s (the hash h_s of
 * hash.ts), then reports (s, y) with y = GRR over [g] of h_s(v): y = h_s(v) with
 * p = e^eps / (e^eps + g - 1), else a uniform other bucket. A report supports x
 * when h_s(x) = y: Pr = p for x = v and 1/g otherwise (for an ideal hash), so
 * q = 1/g. Report: two words (seed, bucket).
 *
 * Client O(1) per user (three words). Server O(D) per report: D hash evaluations,
 * each compared with the report's bucket as a word interval (no division).
 */
export function localHashCore(
  id: string,
  eps: number,
  domain: number,
  g: number,
): OracleCore<LocalHashReport> {
  const expEps = Math.exp(eps);
  const p = expEps / (expEps + g - 1);
  const q = 1 / g;
  const keep = createBernoulli(p);
  const keepThreshold = keep.threshold;
  const reject = rejectionCount(g - 1);
  const buffer = new WordBuffer();
  const keys = new Int32Array(domain);
  for (let x = 0; x < domain; x++) keys[x] = hashKey(x);
  const scale = g * 2.3283064365386963e-10;
  const starts = new Float64Array(g + 1);
  for (let y = 0; y <= g; y++) starts[y] = bucketStart(y, g);
  const counts = new Int32Array(domain);
  const lawSeeds = new Uint32Array(LAW_SEEDS);
  for (let i = 0; i < LAW_SEEDS; i++) lawSeeds[i] = fmix32(Math.imul(i + 1, 0x2545f491));

  /** The output law given seed s: p on the bucket h_s(value), (1 - p)/(g - 1) on each other bucket. O(g). */
  const conditional = (value: number, seed: number, out: Float64Array): Float64Array => {
    out.fill((1 - p) / (g - 1));
    out[Math.floor(fmix32(seed ^ keys[value]!) * scale)] = p;
    return out;
  };

  return {
    id,
    mechanism: id,
    eps,
    domain,
    p,
    q,
    stride: 2,
    parameters: { g },

    perturbInto(values: ArrayLike<number>, start: number, end: number, out: Uint32Array, rng: Rng): void {
      const count = end - start;
      const words = buffer.draw(rng, 3 * count);
      for (let i = 0; i < count; i++) {
        const seed = words[3 * i]!;
        const own = Math.floor(fmix32(seed ^ keys[values[start + i]!]!) * scale);
        const u = words[3 * i + 1]!;
        let y = own;
        if (!(u < keepThreshold || (u === keepThreshold && keep.fromWord(u, rng)))) {
          const r = boundedFromWord(words[3 * i + 2]!, g - 1, reject, rng);
          y = r >= own ? r + 1 : r;
        }
        out[2 * i] = seed;
        out[2 * i + 1] = y;
      }
    },

    toWords(report: LocalHashReport, out: Uint32Array, offset: number): void {
      if (
        report == null ||
        typeof report !== "object" ||
        typeof report.seed !== "number" ||
        report.seed >>> 0 !== report.seed ||
        typeof report.bucket !== "number" ||
        report.bucket >>> 0 !== report.bucket
      ) {
        malformed(
          `${id}.toWords`,
          "type",
          `a ${id} report is { seed: uint32, bucket: integer in [0, ${g}) }`,
        );
      }
      out[offset] = report.seed;
      out[offset + 1] = report.bucket;
    },

    fromWords: (words: Uint32Array, offset: number): LocalHashReport => ({
      seed: words[offset]!,
      bucket: words[offset + 1]!,
    }),

    checkWords(words: Uint32Array, offset: number): string | undefined {
      const bucket = words[offset + 1]!;
      return bucket < g ? undefined : `bucket ${bucket} is not in [0, ${g})`;
    },

    supportsAt: (words: Uint32Array, offset: number, value: number): boolean =>
      Math.floor(fmix32(words[offset]! ^ keys[value]!) * scale) === words[offset + 1],

    firstInvalid(words: Uint32Array, count: number): number {
      for (let i = 0; i < count; i++) if (words[2 * i + 1]! >= g) return i;
      return -1;
    },

    accumulate(words: Uint32Array, count: number, tally: Float64Array): void {
      // Branch-free interval test on int32s: with d = (h - low) mod 2^32 as an int32 and
      // width <= 2^31, h is in bucket y iff d >= 0 and (d - width) wraps negative.
      const local = counts;
      for (let from = 0; from < count; from += FLUSH_EVERY) {
        const to = Math.min(count, from + FLUSH_EVERY);
        local.fill(0);
        for (let i = from; i < to; i++) {
          const seed = words[2 * i]!;
          const y = words[2 * i + 1]!;
          const low = starts[y]! | 0;
          const width = starts[y + 1]! - starts[y]!;
          for (let x = 0; x < domain; x++) {
            let h = seed ^ keys[x]!;
            h ^= h >>> 16;
            h = Math.imul(h, 0x85ebca6b);
            h ^= h >>> 13;
            h = Math.imul(h, 0xc2b2ae35);
            h ^= h >>> 16;
            const d = (h - low) | 0;
            local[x] = (local[x]! + ((~d & ((d - width) | 0)) >>> 31)) | 0;
          }
        }
        for (let x = 0; x < domain; x++) tally[x]! += local[x]!;
      }
    },

    privacyLaw: () => ({
      kind: "public-seed",
      seeds: LAW_SEEDS,
      outputs: g,
      probabilities(value: number, seedIndex: number, out: Float64Array): Float64Array {
        return conditional(value, lawSeeds[seedIndex]!, out);
      },
      given: conditional,
    }),
  };
}
