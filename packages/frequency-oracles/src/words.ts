import type { Rng } from "@calm-ldp/random";

const TWO_POW_32 = 4294967296;
const TWO_POW_MINUS_32 = 1 / TWO_POW_32;
/** Ranges up to 2^21 use the multiply-high method: u * range stays below 2^53, exact in a double. */
const MULTIPLY_MAX_RANGE = 2 ** 21;

/**
 * @internal Fill `out` with uniform words. Short fills draw word by word (the
 * source's own buffer: one platform call per 64 KiB for `cryptoRng`), long fills
 * go to `rng.fill` in bulk. O(out.length).
 */
export function fillWords(rng: Rng, out: Uint32Array): Uint32Array {
  if (out.length < 64) {
    for (let i = 0; i < out.length; i++) out[i] = rng.nextUint32();
    return out;
  }
  return rng.fill(out);
}

/** @internal `2^32 mod range`: the rejection parameter of {@link boundedFromWord}. O(1). */
export function rejectionCount(range: number): number {
  return TWO_POW_32 % range;
}

/**
 * @internal Uniform integer in [0, range) from an already drawn word `u`, exactly
 * (no modulo bias). For range <= 2^21, Lemire's multiply-high method: with
 * `prod = u * range` (exact), `hi = floor(prod / 2^32)` is returned unless the low
 * part `prod mod 2^32` is below `reject = 2^32 mod range`, in which case a fresh
 * word is drawn from `rng`. Above 2^21, `u mod range` for u below the largest
 * multiple of range. Either way each value has probability exactly 1/range;
 * expected extra words < range / 2^32. O(1).
 */
export function boundedFromWord(u: number, range: number, reject: number, rng: Rng): number {
  if (range <= MULTIPLY_MAX_RANGE) {
    for (;;) {
      const prod = u * range;
      const hi = Math.floor(prod * TWO_POW_MINUS_32);
      if (prod - hi * TWO_POW_32 >= reject) return hi;
      u = rng.nextUint32();
    }
  }
  const limit = TWO_POW_32 - reject;
  while (u >= limit) u = rng.nextUint32();
  return u % range;
}

/** @internal Parity of the number of set bits of a 32-bit word (0 or 1). O(1). */
export function parity32(x: number): number {
  x ^= x >>> 16;
  x ^= x >>> 8;
  x ^= x >>> 4;
  x ^= x >>> 2;
  x ^= x >>> 1;
  return x & 1;
}

/** @internal Number of set bits of a 32-bit word. O(1). */
export function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** @internal A growable scratch buffer of random words, reused across calls of one kernel. */
export class WordBuffer {
  #words = new Uint32Array(0);

  /** `length` fresh uniform words from `rng` (the returned view is valid until the next call). */
  draw(rng: Rng, length: number): Uint32Array {
    if (this.#words.length < length) this.#words = new Uint32Array(Math.max(length, 2 * this.#words.length));
    return fillWords(rng, this.#words.subarray(0, length));
  }
}
