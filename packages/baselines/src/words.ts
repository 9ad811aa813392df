import type { BernoulliSampler, Rng } from "@calm-ldp/random";

/** @internal The exact uniform-from-word sampler of @calm-ldp/random, under the names this package uses. */
export { uniformIntFromWord as uniformFromWord, uniformRejection as rejectionOf } from "@calm-ldp/random";

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

/**
 * @internal Binary randomized response from one random word: `bit` kept with the
 * sampler's probability p (the word below its integer threshold; a tie refined
 * exactly by `fromWord`), else flipped. O(1).
 */
export function randomizedBit(keep: BernoulliSampler, word: number, bit: number, rng: Rng): number {
  const kept = word < keep.threshold || (word === keep.threshold && keep.fromWord(word, rng));
  return kept ? bit : bit ^ 1;
}
