import { nextKSubset, popcount32 } from "@calm-ldp/random";
import { binomial, binomialTable } from "./binomial.js";
import { DesignTooLargeError, fail } from "./errors.js";

/** Largest number of t-subsets {@link countUncovered} will tabulate (a 2^28-bit map, 32 MiB). */
const MAX_TSETS = 2 ** 28;

/**
 * The number of t-subsets of `{0..v-1}` contained in no block. Blocks are arrays
 * of distinct integers in [0, v), in any order and of any sizes (a block smaller
 * than t covers nothing). Marks the colex rank of every t-subset of every block in
 * a bitmap: O(sum_B C(|B|, t) t + C(v, t)/32) time, C(v, t) bits of memory; throws
 * {@link DesignTooLargeError} when C(v, t) > 2^28.
 */
export function countUncovered(blocks: readonly (readonly number[])[], v: number, t: number): number {
  if (!Number.isInteger(v) || v < 1 || v > 1024)
    fail("countUncovered", "v must be an integer in [1, 1024]", v);
  if (!Number.isInteger(t) || t < 1 || t > v)
    fail("countUncovered", `t must be an integer in [1, v = ${v}]`, t);
  const total = binomial(v, t);
  if (total > MAX_TSETS) {
    throw new DesignTooLargeError(
      `countUncovered: C(v, t) = C(${v}, ${t}) = ${total} t-subsets exceed the 2^28 limit`,
    );
  }
  const binom = binomialTable(v, t);
  const width = t + 1;
  const seen = new Uint32Array(Math.ceil(total / 32));
  const subset = new Int32Array(t);
  for (let b = 0; b < blocks.length; b++) {
    const block = blocks[b]!;
    const sorted = Int32Array.from(block).sort();
    for (let i = 0; i < sorted.length; i++) {
      const p = sorted[i]!;
      if (!Number.isInteger(block[i]) || p < 0 || p >= v || (i > 0 && sorted[i - 1] === p)) {
        fail("countUncovered", `block ${b} must hold distinct integers in [0, v = ${v})`, block);
      }
    }
    const size = sorted.length;
    if (size < t) continue;
    // Walk the t-subsets of the block's positions in lexicographic order.
    for (let i = 0; i < t; i++) subset[i] = i;
    do {
      let rank = 0;
      for (let i = 0; i < t; i++) rank += binom[sorted[subset[i]!]! * width + i + 1]!;
      seen[rank >>> 5]! |= 1 << (rank & 31);
    } while (nextKSubset(subset, size));
  }
  let covered = 0;
  for (let w = 0; w < seen.length; w++) covered += popcount32(seen[w]!);
  return total - covered;
}

/**
 * Whether `blocks` form a covering design for t-subsets of `{0..v-1}`: every
 * t-subset lies in at least one block (see {@link countUncovered} for the input
 * rules and the cost).
 */
export function verify(blocks: readonly (readonly number[])[], v: number, t: number): boolean {
  return countUncovered(blocks, v, t) === 0;
}
