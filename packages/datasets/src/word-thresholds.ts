import { fail } from "./errors.js";

/** 2^32: the number of distinct uniform words. */
export const WORD_RANGE = 2 ** 32;

/**
 * Integer thresholds that turn one uniform 32-bit word into a categorical draw: with the returned
 * T_0 <= T_1 <= ... <= T_{c-1} = start + span, a word u in [start, start + span) gives the smallest x with
 * u < T_x. `T_x = start + round(span * (p_0 + ... + p_x))` after normalising the weights, so each
 * category's probability is realised to within 2^-32 (exact when p * span is an integer). O(c).
 * @internal
 */
export function cumulativeThresholds(
  where: string,
  weights: ArrayLike<number>,
  start = 0,
  span = WORD_RANGE,
): Float64Array {
  let total = 0;
  for (let i = 0; i < weights.length; i++) {
    const w = weights[i]!;
    if (!(w >= 0 && Number.isFinite(w))) fail(where, `probabilities must be finite and >= 0 (index ${i})`, w);
    total += w;
  }
  if (!(total > 0)) fail(where, "probabilities must have a positive sum", total);
  const thresholds = new Float64Array(weights.length);
  let cumulative = 0;
  for (let i = 0; i < weights.length; i++) {
    cumulative += weights[i]!;
    thresholds[i] = i === weights.length - 1 ? start + span : start + Math.round((span * cumulative) / total);
  }
  return thresholds;
}

/** Categorical value of one word: the first x with u < thresholds[x] (linear scan; c is small). @internal */
export function categoryOfWord(u: number, thresholds: Float64Array): number {
  let x = 0;
  while (u >= thresholds[x]!) x++;
  return x;
}
