import type { Rng } from "./api.js";
import { fail } from "./errors.js";
import { multinomial } from "./multinomial.js";
import { shuffle } from "./shuffle.js";
import { uniformIntSampler } from "./uniform-int.js";

/** Options of {@link partition}. */
export interface PartitionOptions {
  /**
   * `false` (default): every user picks a group independently and uniformly, as a
   * client does on her own device (group sizes are multinomial). `true`: a uniformly
   * random balanced split, group sizes differing by at most one.
   */
  balanced?: boolean;
}

/**
 * Uniform random assignment of n users to `groups` groups: returns the group of
 * each user. O(n).
 */
export function partition(rng: Rng, n: number, groups: number, options: PartitionOptions = {}): Uint32Array {
  if (!Number.isInteger(n) || n < 0) fail("partition", "n must be an integer >= 0", n);
  if (!Number.isInteger(groups) || groups < 1 || groups > 2 ** 32)
    fail("partition", "groups must be an integer in [1, 2^32]", groups);
  const out = new Uint32Array(n);
  if (options.balanced) {
    for (let i = 0; i < n; i++) out[i] = i % groups;
    return shuffle(rng, out);
  }
  const draw = uniformIntSampler(groups);
  for (let i = 0; i < n; i++) out[i] = draw(rng);
  return out;
}

/**
 * Sizes of the groups when n users each pick one of `groups` uniformly: a
 * Multinomial(n, 1/groups, ...) draw, the count-level equivalent of
 * {@link partition}. O(groups).
 */
export function groupSizes(rng: Rng, n: number, groups: number): Float64Array {
  if (!Number.isInteger(groups) || groups < 1) fail("groupSizes", "groups must be an integer >= 1", groups);
  return multinomial(rng, n, new Float64Array(groups).fill(1));
}
