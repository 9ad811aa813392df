import type { Rng } from "./api.js";

/**
 * A scripted Rng for exactness tests: returns the given words in order (then
 * throws), so a test can drive a sampler through a chosen path.
 * @internal test support, not exported from the package
 */
export function scriptedRng(words: readonly number[]): Rng {
  let position = 0;
  const next = (): number => {
    if (position >= words.length) throw new Error("scriptedRng: script exhausted");
    return words[position++]! >>> 0;
  };
  return {
    nextUint32: next,
    fill(out) {
      for (let i = 0; i < out.length; i++) out[i] = next();
      return out;
    },
    nextFloat() {
      const high = next() >>> 5;
      return (high * 67108864 + (next() >>> 6)) / 2 ** 53;
    },
  };
}

/** Two-sided z statistic of an observed mean against its expectation and per-draw variance. */
export function zScore(observedMean: number, expectedMean: number, variance: number, draws: number): number {
  return (observedMean - expectedMean) / Math.sqrt(variance / draws);
}
