import type { Rng } from "@calm-ldp/random";

const TWO_POW_32 = 4294967296;
const TWO_POW_MINUS_32 = 1 / TWO_POW_32;

/**
 * @internal A uniform integer in [0, range) from an already drawn word `u`,
 * exactly: Lemire's multiply-high method for range <= 2^21 (`u * range` is exact
 * in a double), with a fresh word from `rng` when the low part falls below
 * `2^32 mod range`; above 2^21, rejection of words at or above the largest
 * multiple of range, then `u mod range`. Every value has probability exactly
 * 1/range. O(1) expected.
 */
export function uniformFromWord(u: number, range: number, reject: number, rng: Rng): number {
  if (range <= 2097152) {
    for (;;) {
      const product = u * range;
      const high = Math.floor(product * TWO_POW_MINUS_32);
      if (product - high * TWO_POW_32 >= reject) return high;
      u = rng.nextUint32();
    }
  }
  const limit = TWO_POW_32 - reject;
  while (u >= limit) u = rng.nextUint32();
  return u % range;
}

/** @internal `2^32 mod range`, the rejection parameter of {@link uniformFromWord}. */
export function rejectionOf(range: number): number {
  return TWO_POW_32 % range;
}

/** @internal Parity (0 or 1) of the set bits of a 32-bit word. O(1). */
export function parity32(x: number): number {
  x ^= x >>> 16;
  x ^= x >>> 8;
  x ^= x >>> 4;
  x ^= x >>> 2;
  x ^= x >>> 1;
  return x & 1;
}

/** @internal A reusable buffer of random words. */
export class WordBuffer {
  #words = new Uint32Array(0);

  /** `length` fresh words from `rng` (valid until the next call). */
  draw(rng: Rng, length: number): Uint32Array {
    if (this.#words.length < length) this.#words = new Uint32Array(Math.max(length, 2 * this.#words.length));
    const view = this.#words.subarray(0, length);
    if (length < 64) {
      for (let i = 0; i < length; i++) view[i] = rng.nextUint32();
      return view;
    }
    return rng.fill(view);
  }
}
