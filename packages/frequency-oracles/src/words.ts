import type { Rng } from "@calm-ldp/random";

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

/**
 * @internal The exact uniform-from-word sampler and its rejection parameter now live
 * in @calm-ldp/random (`uniformIntFromWord`, `uniformRejection`); these names stay for
 * the oracle kernels.
 */
/** @internal Number of set bits of a 32-bit word (from @calm-ldp/random). O(1). */
export {
  popcount32,
  uniformIntFromWord as boundedFromWord,
  uniformRejection as rejectionCount,
} from "@calm-ldp/random";

/** @internal A growable scratch buffer of random words, reused across calls of one kernel. */
export class WordBuffer {
  #words = new Uint32Array(0);

  /** `length` fresh uniform words from `rng` (the returned view is valid until the next call). */
  draw(rng: Rng, length: number): Uint32Array {
    if (this.#words.length < length) this.#words = new Uint32Array(Math.max(length, 2 * this.#words.length));
    return fillWords(rng, this.#words.subarray(0, length));
  }
}
