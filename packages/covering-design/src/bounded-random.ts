import type { Rng } from "@calm-ldp/random";

const TWO_POW_32 = 2 ** 32;

/**
 * A uniform integer in [0, n) for 1 <= n <= 2^21, without bias, for the search's
 * hot loops: Lemire's multiply-and-reject ("Fast random integer generation in an
 * interval", ACM TOMACS 29(1), 2019) on one 32-bit word. x n < 2^53 is exact in a
 * double; a word is rejected only when the low part of x n falls below
 * 2^32 mod n, so every value has exactly floor(2^32 / n) accepted words. The low word is
 * `x n >>> 0` and the modulo runs only on the rare near-rejection path. No validation. O(1) expected.
 * @internal
 */
export function boundedRandom(rng: Rng, n: number): number {
  let product = rng.nextUint32() * n;
  let low = product >>> 0; // ToUint32 is exact modulo 2^32 for integers below 2^53
  if (low < n) {
    const threshold = TWO_POW_32 % n;
    while (low < threshold) {
      product = rng.nextUint32() * n;
      low = product >>> 0;
    }
  }
  return (product - low) / TWO_POW_32;
}
