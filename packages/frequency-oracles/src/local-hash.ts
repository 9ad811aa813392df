import { type BernoulliSampler, createBernoulli, type Rng } from "@calm-ldp/random";
import type { LocalHashReport, OracleCore, PrivacyLaw } from "./api.js";
import { malformed } from "./errors.js";
import { bucketStart, fmix32, hashKey } from "./hash.js";
import { boundedFromWord, rejectionCount, WordBuffer } from "./words.js";

/** Seeds enumerated by the exact privacy check (the seed's law does not depend on the input). */
const LAW_SEEDS = 64;
/** The server kernel counts in int32 and flushes to the float tally at least this often (reports). */
const FLUSH_EVERY = 2 ** 30;
/** 2^-32: a 32-bit hash times `g * 2^-32` is its bucket in [0, g). */
const TWO_POW_MINUS_32 = 2.3283064365386963e-10;

/** What every step of one local-hashing oracle shares, computed once per oracle. */
interface LocalHashTables {
  readonly domain: number;
  /** Number of hash buckets g (2 for BLH). */
  readonly g: number;
  /** Probability of reporting the true bucket: p = e^eps / (e^eps + g - 1). */
  readonly p: number;
  /** The Bernoulli(p) sampler whose word threshold decides keep/flip. */
  readonly keep: BernoulliSampler;
  /** Rejection bound for a uniform draw over the g - 1 other buckets (see words.ts). */
  readonly reject: number;
  /** hashKey(x) for every value x: h_s(x) = fmix32(s ^ keys[x]). */
  readonly keys: Int32Array;
  /** g * 2^-32: bucket of a 32-bit hash h is floor(h * scale). */
  readonly scale: number;
  /** starts[y] = first 32-bit hash of bucket y (bucketStart), y in [0, g]; bucket y is [starts[y], starts[y + 1]). */
  readonly starts: Float64Array;
}

/**
 * The oracle's shared tables: p = e^eps / (e^eps + g - 1), the keep sampler, the
 * rejection bound for the g - 1 other buckets, the per-value hash keys and the
 * buckets' word intervals. O(D + g) time and memory, once per oracle.
 */
function localHashTables(eps: number, domain: number, g: number): LocalHashTables {
  const expEps = Math.exp(eps);
  const p = expEps / (expEps + g - 1);
  const keys = new Int32Array(domain);
  for (let x = 0; x < domain; x++) keys[x] = hashKey(x);
  const starts = new Float64Array(g + 1);
  for (let y = 0; y <= g; y++) starts[y] = bucketStart(y, g);
  const keep = createBernoulli(p);
  return { domain, g, p, keep, reject: rejectionCount(g - 1), keys, scale: g * TWO_POW_MINUS_32, starts };
}

/**
 * Client perturbation of values[start..end) into `out` (two words per report):
 * per user three fresh words (seed s, keep word u, other-bucket word); the own
 * bucket is h_s(v) = floor(fmix32(s ^ key(v)) * g / 2^32); kept with probability p
 * (u below the sampler's threshold, a tie resolved by one more draw), else a
 * uniform other bucket r' in [0, g - 1) mapped to r' + [r' >= own]. Report (s, y).
 * O(1) per user (three words; rejection redraws with probability < 2^-31 per try).
 */
function localHashPerturb(tables: LocalHashTables): OracleCore<LocalHashReport>["perturbInto"] {
  const { g, keep, reject, keys, scale } = tables;
  const keepThreshold = keep.threshold;
  const buffer = new WordBuffer();
  return (values: ArrayLike<number>, start: number, end: number, out: Uint32Array, rng: Rng): void => {
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
  };
}

/**
 * Server kernel: tally[x] += #{reports (s, y): h_s(x) in bucket y} for `count`
 * validated packed reports. fmix32 is inlined and bucket membership is a
 * branch-free interval test on int32s: with d = (h - low) mod 2^32 as an int32 and
 * width <= 2^31, h is in bucket y iff d >= 0 and (d - width) wraps negative.
 * Counts accumulate in an int32 array flushed to the float tally every 2^30
 * reports. O(count D) hash evaluations, no division; O(D) extra memory per oracle.
 */
function localHashAccumulate(
  tables: LocalHashTables,
): NonNullable<OracleCore<LocalHashReport>["accumulate"]> {
  const { domain, keys, starts } = tables;
  const counts = new Int32Array(domain);
  return (words: Uint32Array, count: number, tally: Float64Array): void => {
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
  };
}

/**
 * The exact law for the privacy check ("public-seed"): the seed is uniform and
 * independent of the input, so the check enumerates LAW_SEEDS = 64 fixed seeds
 * (fmix32((i + 1) * 0x2545f491)); given seed s the output is p on bucket h_s(value)
 * and (1 - p)/(g - 1) on each other bucket. O(g) per conditional law.
 */
function localHashLaw(tables: LocalHashTables): () => PrivacyLaw {
  const { g, p, keys, scale } = tables;
  const lawSeeds = new Uint32Array(LAW_SEEDS);
  for (let i = 0; i < LAW_SEEDS; i++) lawSeeds[i] = fmix32(Math.imul(i + 1, 0x2545f491));
  /** The output law given seed s: p on the bucket h_s(value), (1 - p)/(g - 1) on each other bucket. O(g). */
  const conditional = (value: number, seed: number, out: Float64Array): Float64Array => {
    out.fill((1 - p) / (g - 1));
    out[Math.floor(fmix32(seed ^ keys[value]!) * scale)] = p;
    return out;
  };
  return () => ({
    kind: "public-seed",
    seeds: LAW_SEEDS,
    outputs: g,
    probabilities(value: number, seedIndex: number, out: Float64Array): Float64Array {
      return conditional(value, lawSeeds[seedIndex]!, out);
    },
    given: conditional,
  });
}

/**
 * The wire form of a report: two words (seed, bucket); a report object must be
 * `{ seed: uint32, bucket: uint32 }` (else `malformed`, "type"), and packed words
 * are valid when bucket < g. O(1) per report; `firstInvalid` O(count).
 */
function localHashWire(id: string, g: number) {
  return {
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

    firstInvalid(words: Uint32Array, count: number): number {
      for (let i = 0; i < count; i++) if (words[2 * i + 1]! >= g) return i;
      return -1;
    },
  };
}

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
 * Steps: `localHashTables`, `localHashPerturb`, `localHashAccumulate`,
 * `localHashWire`, `localHashLaw`.
 */
export function localHashCore(
  id: string,
  eps: number,
  domain: number,
  g: number,
): OracleCore<LocalHashReport> {
  const tables = localHashTables(eps, domain, g);
  const { p, keys, scale } = tables;
  return {
    id,
    mechanism: id,
    eps,
    domain,
    p,
    q: 1 / g,
    stride: 2,
    parameters: { g },
    perturbInto: localHashPerturb(tables),
    ...localHashWire(id, g),
    supportsAt: (words: Uint32Array, offset: number, value: number): boolean =>
      Math.floor(fmix32(words[offset]! ^ keys[value]!) * scale) === words[offset + 1],
    accumulate: localHashAccumulate(tables),
    privacyLaw: localHashLaw(tables),
  };
}
