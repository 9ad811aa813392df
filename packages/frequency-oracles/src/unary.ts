import { bernoulli, type Rng } from "@calm-ldp/random";
import type { DeviceOracle, OracleCore, OracleOptions } from "./api.js";
import { malformed } from "./errors.js";
import { peakedLaw } from "./exact-privacy.js";
import { checkOracleOptions } from "./params.js";
import { simulateSupportPerCell } from "./simulate.js";
import { WordBuffer } from "./words.js";

/**
 * @internal The unary-encoding core shared by OUE, SUE and the adaptive oracle:
 * the one-hot vector of the value, its 1 kept with probability `p`, every 0 set
 * with probability `q`, bits independent. Report: a bitset of ceil(D/32) words
 * (bit x of word x >> 5 is coordinate x; bits past D are zero).
 *
 * Client kernel: every coordinate gets its own 8-bit uniform (four per word,
 * ceil(D/4) words per user). A 65,536-entry table maps two such bytes at once to
 * their two bits `byte < floor(256 q)` and two tie flags `byte = floor(256 q)`;
 * a tie (probability 1/256 per coordinate) is refined exactly with probability
 * `256 q - floor(256 q)` (see words.ts), so every bit is Bernoulli(q) exactly.
 * The true coordinate is then *recomputed* from its own byte with p's threshold,
 * so it is set or reset: forgetting the reset is the historical bug the audit
 * catches. Server kernel: iterate the set bits of each report, O(set bits).
 */
export function unaryCore(parameters: UnaryParameters): OracleCore<Uint32Array> {
  const { domain, p, q } = parameters;
  const device = unaryDeviceCore(parameters);
  const { stride, padMask } = bitsetLayout(domain);
  return {
    ...device,

    firstInvalid(words: Uint32Array, count: number): number {
      if (padMask === 0) return -1;
      for (let i = 0, last = stride - 1; i < count; i++, last += stride)
        if ((words[last]! & padMask) !== 0) return i;
      return -1;
    },

    accumulate(words: Uint32Array, count: number, tally: Float64Array): void {
      accumulateBitsets(words, count, stride, tally);
    },

    /** Joint and exact: bits are independent, so C(x) = Binomial(N_x, p) + Binomial(N - N_x, q) independently (../../../docs/algorithms.md#frequency-oracles). */
    simulateCounts(trueCounts: ArrayLike<number>, rng: Rng, out: Float64Array): void {
      let total = 0;
      for (let x = 0; x < domain; x++) total += trueCounts[x]!;
      simulateSupportPerCell(trueCounts, total, p, q, rng, out);
    },
    simulation: "joint",
  };
}

/**
 * @internal A unary-encoding oracle's public parameters: its id, the mechanism it
 * runs, eps, D and the bit probabilities p (the value's 1 kept) and q (a 0 set).
 */
export type UnaryParameters = Pick<DeviceOracle, "id" | "mechanism" | "eps" | "domain" | "p" | "q">;

/**
 * @internal The checked parameters of a unary-encoding oracle `id` (OUE, SUE): eps,
 * D in [2, 2^24], and (p, q) from eps by the mechanism's `law`. O(1).
 */
export function unaryParameters(
  id: string,
  where: string,
  options: OracleOptions,
  law: (eps: number) => readonly [p: number, q: number],
): UnaryParameters {
  const { eps, domain } = checkOracleOptions(where, options, 2 ** 24);
  const [p, q] = law(eps);
  return { id, mechanism: id, eps, domain, p, q };
}

/** A D-bit report's words (ceil(D/32)) and the mask of the unused bits of its last word (0 when none). */
function bitsetLayout(domain: number): { stride: number; padMask: number } {
  const tailBits = domain & 31;
  return { stride: (domain + 31) >>> 5, padMask: tailBits === 0 ? 0 : ~((1 << tailBits) - 1) };
}

/** @internal The unary core's device side: parameters, client kernel, codec, support test, output law. */
export function unaryDeviceCore(parameters: UnaryParameters): OracleCore<Uint32Array> {
  const { id, domain, p, q } = parameters;
  const { stride, padMask } = bitsetLayout(domain);
  const wordsPerUser = (domain + 3) >>> 2;
  const one = byteBernoulli(p);
  const zero = byteBernoulli(q);
  const pairTable = bytePairTable(zero.threshold);
  const buffer = new WordBuffer();

  const checkWords = (words: Uint32Array, offset: number): string | undefined =>
    (words[offset + stride - 1]! & padMask) === 0 ? undefined : `bits at or beyond D = ${domain} are set`;

  return {
    ...parameters,
    stride,

    perturbInto(values: ArrayLike<number>, start: number, end: number, out: Uint32Array, rng: Rng): void {
      const count = end - start;
      const random = buffer.draw(rng, wordsPerUser * count);
      const table = pairTable;
      for (let i = 0; i < count; i++) {
        const base = i * wordsPerUser;
        const outBase = i * stride;
        for (let w = 0; w < stride; w++) {
          let bits = 0;
          const first = base + 8 * w;
          const words = Math.min(8, wordsPerUser - 8 * w);
          for (let j = 0; j < words; j++) {
            const u = random[first + j]!;
            const low = table[u & 0xffff]!;
            const high = table[u >>> 16]!;
            let nibble = (low & 3) | ((high & 3) << 2);
            if (((low | high) & 12) !== 0) nibble = breakTies(u, nibble, zero, rng);
            bits |= nibble << (4 * j);
          }
          out[outBase + w] = bits;
        }
        const value = values[start + i]!;
        // The true coordinate: recompute from its own byte with p's threshold (set OR reset).
        const byte = (random[base + (value >>> 2)]! >>> (8 * (value & 3))) & 0xff;
        const bit = byte < one.threshold ? 1 : byte === one.threshold ? breakTie(rng, one.remainder) : 0;
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

    privacyLaw: () => peakedLaw("independent-bits", domain, p, q),
  };
}

/**
 * @internal Threshold and remainder of an exact Bernoulli(p) on bytes: a uniform byte b is
 * a success if b < threshold = floor(256 p), a failure if b > threshold, and on a
 * tie a success with probability remainder = 256 p - threshold (exact: scaling by
 * 256 is exact in doubles), so Pr[success] = threshold/256 + remainder/256 = p.
 */
export function byteBernoulli(p: number): { threshold: number; remainder: number } {
  const scaled = p * 256;
  const threshold = Math.min(256, Math.floor(scaled));
  return { threshold, remainder: scaled - threshold };
}

/**
 * For every 16-bit index (two bytes a = low, b = high): bit 0 = a < t, bit 1 = b < t,
 * bit 2 = a is a tie, bit 3 = b is a tie. 64 KiB, built once per oracle.
 */
function bytePairTable(threshold: number): Uint8Array {
  const table = new Uint8Array(65536);
  for (let index = 0; index < 65536; index++) {
    const a = index & 0xff;
    const b = index >>> 8;
    table[index] =
      (a < threshold ? 1 : 0) |
      (b < threshold ? 2 : 0) |
      (a === threshold ? 4 : 0) |
      (b === threshold ? 8 : 0);
  }
  return table;
}

/** Refine the tied bytes of word u (about 1.6 % of words): each tie is a success with the remainder's probability. */
function breakTies(
  u: number,
  nibble: number,
  zero: { threshold: number; remainder: number },
  rng: Rng,
): number {
  for (let lane = 0; lane < 4; lane++) {
    if (((u >>> (8 * lane)) & 0xff) === zero.threshold && breakTie(rng, zero.remainder) === 1)
      nibble |= 1 << lane;
  }
  return nibble;
}

/** 1 with probability `remainder` (exact), for a tied byte. */
function breakTie(rng: Rng, remainder: number): number {
  return remainder > 0 && bernoulli(rng, remainder) ? 1 : 0;
}

/**
 * Byte-to-lanes tables: `SPREAD_LOW[b]` puts bits 0..3 of b into the four bytes of an int32,
 * `SPREAD_HIGH[b]` bits 4..7. Built by a pure call so a bundle without the server kernel drops them.
 */
const [SPREAD_LOW, SPREAD_HIGH] = /* @__PURE__ */ spreadTables();

function spreadTables(): [Int32Array, Int32Array] {
  const low = new Int32Array(256);
  const high = new Int32Array(256);
  for (let b = 0; b < 256; b++) {
    for (let i = 0; i < 4; i++) {
      low[b]! |= ((b >>> i) & 1) << (8 * i);
      high[b]! |= ((b >>> (i + 4)) & 1) << (8 * i);
    }
  }
  return [low, high];
}
/** Reports folded into the byte lanes before they are flushed (a lane holds at most 255). */
const LANE_CAPACITY = 255;

/**
 * @internal Add every set bit of `count` bitsets of `stride` words to
 * `tally[bit index]` (bits at or beyond tally.length must be zero). SWAR counting:
 * each byte of a report is spread by table lookup into four 8-bit lanes of two
 * int32 accumulators, so one report word costs 8 lookups and 8 adds whatever its
 * density; the lanes are flushed into the tally every 255 reports. O(count stride
 * + (count / 255) 32 stride).
 */
export function accumulateBitsets(
  words: Uint32Array,
  count: number,
  stride: number,
  tally: Float64Array,
): void {
  const lanes = new Int32Array(stride * 8);
  const bits = tally.length;
  for (let from = 0; from < count; from += LANE_CAPACITY) {
    const to = Math.min(count, from + LANE_CAPACITY);
    for (let i = from, offset = from * stride; i < to; i++) {
      for (let w = 0, lane = 0; w < stride; w++, lane += 8, offset++) {
        const u = words[offset]!;
        let b = u & 0xff;
        lanes[lane]! += SPREAD_LOW[b]!;
        lanes[lane + 1]! += SPREAD_HIGH[b]!;
        b = (u >>> 8) & 0xff;
        lanes[lane + 2]! += SPREAD_LOW[b]!;
        lanes[lane + 3]! += SPREAD_HIGH[b]!;
        b = (u >>> 16) & 0xff;
        lanes[lane + 4]! += SPREAD_LOW[b]!;
        lanes[lane + 5]! += SPREAD_HIGH[b]!;
        b = u >>> 24;
        lanes[lane + 6]! += SPREAD_LOW[b]!;
        lanes[lane + 7]! += SPREAD_HIGH[b]!;
      }
    }
    // Lane k covers bits 4k .. 4k+3 (k = 8 w + 2 byte + half), one per byte of the int32.
    for (let k = 0; k < lanes.length; k++) {
      const packed = lanes[k]!;
      if (packed === 0) continue;
      for (let j = 0, bit = 4 * k; j < 4 && bit < bits; j++, bit++)
        tally[bit]! += (packed >>> (8 * j)) & 0xff;
    }
    lanes.fill(0);
  }
}
