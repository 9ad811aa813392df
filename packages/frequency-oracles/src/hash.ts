/**
 * The seedable hash family of the local-hashing oracles (OLH, BLH):
 *
 *     h_s(x) = floor( g * fmix32(s XOR key(x)) / 2^32 ),   key(x) = (x + 1) * 0x9E3779B9 mod 2^32
 *
 * where s is the user's 32-bit seed and fmix32 is MurmurHash3's 32-bit finaliser
 * (xorshift 16, multiply 0x85EBCA6B, xorshift 13, multiply 0xC2B2AE35, xorshift
 * 16). fmix32 and XOR with a constant are bijections of 32-bit words, so for every
 * fixed x, h_s(x) over a uniform seed hits each bucket with probability within
 * 2^-32 of 1/g (multiply-high reduction: each bucket has floor or ceil of 2^32/g
 * preimages). The family is not provably pairwise independent; its collision
 * rate Pr_s[h_s(x) = h_s(x')] for x != x' is 1/g to within what our tests can
 * resolve (see hash.test.ts). Privacy never depends on the hash (GRR over [g] is
 * eps-LDP whatever h is); unbiasedness depends on the collision rate being 1/g.
 * Cost: two integer multiplies and three shifts per evaluation. Requires g <= 2^21.
 */
export function localHash(seed: number, value: number, g: number): number {
  return Math.floor(fmix32(seed ^ hashKey(value)) * g * 2.3283064365386963e-10);
}

/** The per-value key `(x + 1) * 0x9E3779B9 mod 2^32` (as a signed 32-bit integer). O(1). */
export function hashKey(value: number): number {
  return Math.imul(value + 1, 0x9e3779b9);
}

/** MurmurHash3's 32-bit finaliser, a bijection of 32-bit words; returns an unsigned word. O(1). */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The lowest word of bucket y: `ceil(y 2^32 / g)`; bucket y is the words
 * [bucketStart(y), bucketStart(y + 1)). A word w is in bucket y exactly when
 * floor(w g / 2^32) = y. O(1).
 */
export function bucketStart(y: number, g: number): number {
  return Math.ceil((y * 4294967296) / g);
}
