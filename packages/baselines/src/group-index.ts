import { allQueries } from "@calm-ldp/marginal-algebra";
import { binomialCoefficient } from "@calm-ldp/random";

/**
 * @internal The k-subsets of [0, d) in lexicographic order (`allQueries`), with a
 * lookup from a subset to its index: the groups of AM and the Marg methods, and
 * the order in which their plans number them.
 */
export interface GroupIndex {
  readonly groups: readonly (readonly number[])[];
  /** Index of an ascending k-subset, or -1. O(k). */
  indexOf(attributes: readonly number[]): number;
  /** Indices of the groups containing the ascending set `attributes`. O(C(d - t, k - t) k). */
  containing(attributes: readonly number[]): number[];
}

/** @internal Build the group index of C(d, k) subsets. O(C(d, k) k). */
export function groupIndex(d: number, k: number): GroupIndex {
  const groups = allQueries(d, k);
  // Lexicographic rank: for the i-th member c_i (after previous member p), skip every
  // subset that has a smaller member at position i: sum_{x = p+1}^{c_i - 1} C(d - 1 - x, k - 1 - i).
  const table: number[][] = [];
  for (let x = 0; x <= d; x++) {
    const row: number[] = [];
    for (let j = 0; j <= k; j++) row.push(binomialCoefficient(x, j));
    table.push(row);
  }
  const indexOf = (attributes: readonly number[]): number => {
    if (attributes.length !== k) return -1;
    let rank = 0;
    let previous = -1;
    for (let i = 0; i < k; i++) {
      const c = attributes[i]!;
      if (!Number.isInteger(c) || c <= previous || c >= d) return -1;
      for (let x = previous + 1; x < c; x++) rank += table[d - 1 - x]![k - 1 - i]!;
      previous = c;
    }
    return rank;
  };
  const containing = (attributes: readonly number[]): number[] => {
    const t = attributes.length;
    const rest: number[] = [];
    for (let a = 0, j = 0; a < d; a++) {
      if (j < t && attributes[j] === a) j++;
      else rest.push(a);
    }
    if (t === k) return [indexOf(attributes)];
    const out: number[] = [];
    for (const extra of allQueries(rest.length, k - t)) {
      const set = [...attributes, ...extra.map((i) => rest[i]!)].sort((x, y) => x - y);
      out.push(indexOf(set));
    }
    return out;
  };
  return { groups, indexOf, containing };
}
