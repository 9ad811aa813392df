import type { Rng } from "./api.js";

const TWO_POW_32 = 4294967296;
const TWO_POW_MINUS_32 = 1 / TWO_POW_32;
const MULTIPLY_MAX_RANGE = 2 ** 21;

/** `2^32 mod range`: the rejection parameter of {@link uniformIntFromWord}, computed once per range. O(1). */
export function uniformRejection(range: number): number {
  return TWO_POW_32 % range;
}

/**
 * Uniform integer in [0, range) from an already drawn word `u` (for batch kernels
 * that fill a word buffer first), exactly: no modulo bias. For range <= 2^21,
 * Lemire's multiply-high method: with `prod = u * range` (exact in a double),
 * `hi = floor(prod / 2^32)` is returned unless the low part `prod mod 2^32` is
 * below `reject = uniformRejection(range)`, in which case a fresh word is drawn
 * from `rng`. Above 2^21 (up to 2^32), `u mod range` for u below the largest
 * multiple of range. Either way each value has probability exactly 1/range;
 * expected extra words < range / 2^32. O(1). Parameters are not validated (hot path).
 */
export function uniformIntFromWord(u: number, range: number, reject: number, rng: Rng): number {
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
