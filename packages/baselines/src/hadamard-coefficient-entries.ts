import { createCoefficientIndex } from "@calm-ldp/hadamard";
import type { EncodingRuntime } from "./encoding.js";
import { encodedQuery } from "./encoding.js";
import { UnsupportedQueryError } from "./errors.js";
import type { GroupIndex } from "./group-index.js";

/**
 * @internal The Hadamard coefficients a method's users draw from, as a list of
 * entries: entry e has a coefficient mask over the record's bits
 * (`masks[e * stride .. (e + 1) * stride)`, bit layout of `encoding.ts`).
 * `lookup(query)` gives, for every local coefficient mask m = 1 .. 2^{k2} - 1 of
 * the query's bits (hadamard's local order: bit k2 - 1 - i stands for the i-th
 * bit attribute), the entry holding that coefficient, or -1.
 */
export interface CoefficientEntries {
  readonly size: number;
  readonly stride: number;
  readonly masks: Uint32Array;
}

/**
 * Number of InpHT coefficients over a binary-encoded schema: the non-empty bit
 * sets that touch between 1 and k source attributes,
 * `sum_{S : 1 <= |S| <= k} prod_{a in S} (2^{bits_a} - 1)`, by the elementary
 * symmetric polynomials of `x_a = 2^{bits_a} - 1`. For binary data it is
 * `|T| = sum_{w=1..k} C(d, w)` (../../../docs/algorithms.md#hadamard-methods). O(d k).
 */
export function inputCoefficientCount(bits: readonly number[], k: number): number {
  const e = new Array<number>(k + 1).fill(0);
  e[0] = 1;
  for (const b of bits) {
    const x = 2 ** b - 1;
    for (let w = k; w >= 1; w--) e[w]! += e[w - 1]! * x;
  }
  let total = 0;
  for (let w = 1; w <= k; w++) total += e[w]!;
  return total;
}

/**
 * @internal InpHT's entries: every non-empty set of bits touching 1..k source
 * attributes. Ordered by the touched source set S (ranked by hadamard's
 * `createCoefficientIndex(d, k)`: by size, then colex), then by the per-attribute
 * non-zero bit patterns in mixed radix (first attribute most significant). For
 * binary data, entry e is the coefficient of rank e in hadamard's index. O(|T| d).
 */
export function inputEntries(
  runtime: EncodingRuntime,
  k: number,
): CoefficientEntries & {
  lookup(query: readonly number[]): Int32Array;
} {
  const d = runtime.bits.length;
  const index = createCoefficientIndex(d, k);
  const { stride, shifts, bits } = runtime;
  // Every touched set S in rank order (by size, then colex), enumerated once.
  const offsets = new Float64Array(index.size + 1);
  forEachColexSet(d, k, (set, r) => {
    let count = 1;
    for (const a of set) count *= 2 ** bits[a]! - 1;
    offsets[r + 1] = offsets[r]! + count;
  });
  const size = offsets[index.size]!;
  const masks = new Uint32Array(size * stride);
  const patterns: number[] = [];
  forEachColexSet(d, k, (set, r) => {
    const w = set.length;
    patterns.length = w;
    patterns.fill(1);
    for (let e = offsets[r]!; e < offsets[r + 1]!; e++) {
      for (let i = 0; i < w; i++) {
        const shift = shifts[set[i]!]!;
        for (let j = 0; j < bits[set[i]!]!; j++) {
          if ((patterns[i]! >>> j) & 1) {
            const t = shift + j;
            masks[e * stride + (t >>> 5)]! |= 1 << (t & 31);
          }
        }
      }
      for (let i = w - 1; i >= 0; i--) {
        patterns[i]!++;
        if (patterns[i]! < 2 ** bits[set[i]!]!) break;
        patterns[i] = 1;
      }
    }
  });
  const lookup = (query: readonly number[]): Int32Array => {
    if (query.length > k) {
      throw new UnsupportedQueryError(
        `inpht.query: the coefficients cover queries of at most k = ${k} attributes (got ${query.length})`,
      );
    }
    const radices = query.map((a) => 2 ** bits[a]!);
    const cells = radices.reduce((product, c) => product * c, 1);
    const out = new Int32Array(cells).fill(-1);
    const digits = new Array<number>(query.length).fill(0);
    const touched: number[] = [];
    for (let m = 1; m < cells; m++) {
      for (let i = query.length - 1; i >= 0; i--) {
        digits[i]!++;
        if (digits[i]! < radices[i]!) break;
        digits[i] = 0;
      }
      touched.length = 0;
      let within = 0;
      for (let i = 0; i < query.length; i++) {
        if (digits[i]! === 0) continue;
        touched.push(query[i]!);
        within = within * (radices[i]! - 1) + digits[i]! - 1;
      }
      out[m] = offsets[index.rank(touched)]! + within;
    }
    return out;
  };
  return { size, stride, masks, lookup };
}

/**
 * @internal MargHT's entries: for every group (a k-subset of source attributes,
 * in the group index's order), its non-empty local coefficient masks 1 ..
 * 2^{k2} - 1 over the group's bits, contiguous: entry = `groupOffsets[g] + m - 1`.
 * O(sum_g 2^{k2_g} k2_g).
 */
export function marginalEntries(
  runtime: EncodingRuntime,
  groups: GroupIndex,
): CoefficientEntries & { readonly groupOffsets: Float64Array } {
  const { stride, totalBits } = runtime;
  const groupOffsets = new Float64Array(groups.groups.length + 1);
  const groupBits = groups.groups.map((group) => encodedQuery(runtime, group));
  groupBits.forEach((b, g) => {
    groupOffsets[g + 1] = groupOffsets[g]! + 2 ** b.length - 1;
  });
  const size = groupOffsets[groups.groups.length]!;
  const masks = new Uint32Array(size * stride);
  groupBits.forEach((b, g) => {
    const k2 = b.length;
    for (let m = 1; m < 2 ** k2; m++) {
      const e = groupOffsets[g]! + m - 1;
      for (let i = 0; i < k2; i++) {
        if ((m >>> (k2 - 1 - i)) & 1) {
          const t = totalBits - 1 - b[i]!;
          masks[e * stride + (t >>> 5)]! |= 1 << (t & 31);
        }
      }
    }
  });
  return { size, stride, masks, groupOffsets };
}

/**
 * @internal Call `visit(set, rank)` for every subset of [0, d) with 1..k members,
 * by size and within one size in colex order (the order of hadamard's
 * `createCoefficientIndex` ranks): the successor of c_0 < ... < c_{w-1}
 * increments the first c_i with c_i + 1 < c_{i+1} (c_w = d) and resets
 * c_0..c_{i-1} to 0..i-1. `set` is reused between calls. O(sum_w C(d, w) w).
 */
export function forEachColexSet(
  d: number,
  k: number,
  visit: (set: readonly number[], rank: number) => void,
): void {
  let rank = 0;
  for (let w = 1; w <= k; w++) {
    const c = Array.from({ length: w }, (_, i) => i);
    for (;;) {
      visit(c, rank++);
      let i = 0;
      while (i < w && c[i]! + 1 >= (i + 1 < w ? c[i + 1]! : d)) i++;
      if (i === w) break;
      c[i]!++;
      for (let j = 0; j < i; j++) c[j] = j;
    }
  }
}
