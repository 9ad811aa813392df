import type { Rng } from "./api.js";
import { fail } from "./errors.js";

const TWO_POW_32 = 2 ** 32;

/**
 * Uniform integer in [0, n) by rejection, with no modulo bias: a word `x` is kept
 * only below `limit = 2^32 - (2^32 mod n)`, the largest multiple of n, and
 * `x mod n` returned. Ranges above 2^32 (up to 2^53) combine two words the same way.
 * Expected words per draw < 2. O(1).
 */
export function uniformInt(rng: Rng, n: number): number {
  if (!Number.isSafeInteger(n) || n < 1) fail("uniformInt", "n must be a safe integer >= 1", n);
  if (n <= TWO_POW_32) {
    if ((n & (n - 1)) === 0 && n < TWO_POW_32) return rng.nextUint32() & (n - 1);
    const limit = TWO_POW_32 - (TWO_POW_32 % n);
    for (;;) {
      const x = rng.nextUint32();
      if (x < limit) return x % n;
    }
  }
  // 53-bit path: u = hi * 2^32 + lo with hi < 2^21.
  const range = 2 ** 53;
  const limit = range - (range % n);
  for (;;) {
    const x = (rng.nextUint32() >>> 11) * TWO_POW_32 + rng.nextUint32();
    if (x < limit) return x % n;
  }
}

/**
 * A sampler of uniform integers in [0, n) with the rejection limit precomputed:
 * for hot loops that draw many values from one range (n <= 2^32). Same
 * distribution as {@link uniformInt}.
 */
export function uniformIntSampler(n: number): (rng: Rng) => number {
  if (!Number.isSafeInteger(n) || n < 1 || n > TWO_POW_32) {
    fail("uniformIntSampler", "n must be an integer in [1, 2^32]", n);
  }
  if ((n & (n - 1)) === 0 && n < TWO_POW_32) {
    const mask = n - 1;
    return (rng) => rng.nextUint32() & mask;
  }
  const limit = TWO_POW_32 - (TWO_POW_32 % n);
  return (rng) => {
    for (;;) {
      const x = rng.nextUint32();
      if (x < limit) return x % n;
    }
  };
}
