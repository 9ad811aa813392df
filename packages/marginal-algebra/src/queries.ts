import { kSubsets, type Rng, sampleWithoutReplacement } from "@calm-ldp/random";
import { fail } from "./errors.js";

/**
 * `count` random k-way queries over `d` attributes: each an ascending k-subset of
 * [0, d), every k-subset equally likely (Floyd's sampler), drawn independently
 * (the same subset may come twice), as CALM's evaluation draws them (../../../docs/algorithms.md#evaluation). O(count k log k).
 */
export function randomQueries(rng: Rng, d: number, k: number, count: number): number[][] {
  if (!Number.isInteger(d) || d < 1) fail("randomQueries", "d must be an integer >= 1", d);
  if (!Number.isInteger(k) || k < 1 || k > d)
    fail("randomQueries", `k must be an integer in [1, d = ${d}]`, k);
  if (!Number.isInteger(count) || count < 0) fail("randomQueries", "count must be an integer >= 0", count);
  const queries: number[][] = [];
  for (let q = 0; q < count; q++) queries.push(Array.from(sampleWithoutReplacement(rng, d, k)));
  return queries;
}

/**
 * Every k-subset of [0, d) (ascending members) in lexicographic order: all k-way
 * queries, as Cormode et al. average over. C(d, k) subsets; throws past 10^7.
 * O(C(d, k) k).
 */
export function allQueries(d: number, k: number): number[][] {
  if (!Number.isInteger(d) || d < 0) fail("allQueries", "d must be an integer >= 0", d);
  if (!Number.isInteger(k) || k < 0 || k > d) fail("allQueries", `k must be an integer in [0, d = ${d}]`, k);
  let total = 1;
  for (let i = 0; i < k; i++) total = (total * (d - i)) / (i + 1);
  if (total > 1e7) fail("allQueries", "C(d, k) must be at most 10^7", total);
  return kSubsets(d, k);
}
