/**
 * SplitMix64 over a 64-bit state held as two 32-bit halves, used only to expand
 * seeds into generator state. Returns successive 32-bit outputs (high then low
 * word of each 64-bit output). Reference: Steele, Lea, Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014.
 * @internal
 */
export function splitmix64Words(seedHi: number, seedLo: number, count: number): Uint32Array {
  let state = (BigInt(seedHi >>> 0) << 32n) | BigInt(seedLo >>> 0);
  const mask = (1n << 64n) - 1n;
  const out = new Uint32Array(count);
  for (let i = 0; i < count; i += 2) {
    state = (state + 0x9e3779b97f4a7c15n) & mask;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & mask;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & mask;
    z = z ^ (z >> 31n);
    out[i] = Number(z >> 32n);
    if (i + 1 < count) out[i + 1] = Number(z & 0xffffffffn);
  }
  return out;
}

/**
 * Derive a 32-bit seed from a parent seed and a path of indices (repetition,
 * method, group, ...), by chained SplitMix64 hashing. Use it to give every
 * repetition or worker its own reproducible seed: `deriveSeed(seed, rep, worker)`.
 * O(path.length).
 */
export function deriveSeed(seed: number, ...path: number[]): number {
  let hi = Math.floor(seed / 2 ** 32) >>> 0;
  let lo = seed >>> 0;
  for (const index of path) {
    const words = splitmix64Words(hi ^ 0x5bd1e995, lo ^ (index >>> 0), 2);
    hi = words[0]! ^ (Math.floor(index / 2 ** 32) >>> 0);
    lo = words[1]!;
  }
  return splitmix64Words(hi, lo, 2)[1]!;
}

/** Path index hashed into {@link repetitionSeed}'s root before the repetition ("reps"). */
const REPETITION_STREAM = 0x72657073;

/**
 * The root seed of repetition `rep` of a run seeded with `seed`; derive the
 * repetition's streams from it (`deriveSeed(repetitionSeed(seed, rep), stream, ...)`).
 * Why not `deriveSeed(seed, rep, ...)`: its first step mixes the index into the
 * seed's low word by XOR, so (seed, rep) and (seed', rep') with seed ^ rep = seed' ^ rep'
 * start from the same state, e.g. (1, 2) and (3, 0): two runs under nearby seeds
 * would share repetitions (same sample, same reports). Here the seed is hashed
 * first (`deriveSeed(seed, REPETITION_STREAM, rep)`), so distinct pairs collide
 * only by chance, like any two 32-bit outputs. O(1).
 */
export function repetitionSeed(seed: number, rep: number): number {
  return deriveSeed(seed, REPETITION_STREAM, rep);
}
