import type { Rng } from "./api.js";
import { uniformInt } from "./uniform-int.js";

/**
 * Shuffle `array` in place (Fisher-Yates with unbiased {@link uniformInt});
 * every permutation equally likely. Returns the array. O(length).
 */
export function shuffle<T extends { length: number; [index: number]: unknown }>(rng: Rng, array: T): T {
  for (let i = array.length - 1; i > 0; i--) {
    const j = uniformInt(rng, i + 1);
    const tmp = array[i];
    array[i] = array[j];
    array[j] = tmp;
  }
  return array;
}
