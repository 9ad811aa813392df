import { fail } from "./errors.js";

/**
 * @internal Validate an attribute set given in any order and return it sorted
 * ascending. Throws on non-integers, negatives and repeats. O(k log k).
 */
export function sortedAttributes(where: string, attributes: ArrayLike<number>): number[] {
  const sorted = Array.from(attributes);
  for (const a of sorted) {
    if (!Number.isInteger(a) || a < 0) fail(where, "attribute indices must be integers >= 0", attributes);
  }
  sorted.sort((x, y) => x - y);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i] === sorted[i - 1]) fail(where, "attribute indices must be distinct", attributes);
  }
  return sorted;
}

/** @internal Whether sorted `small` is a subset of sorted `big`. O(|small| + |big|). */
export function isSubset(small: readonly number[], big: readonly number[]): boolean {
  let j = 0;
  for (const a of small) {
    while (j < big.length && big[j]! < a) j++;
    if (j === big.length || big[j] !== a) return false;
    j++;
  }
  return true;
}

/** @internal Intersection of two sorted attribute sets, sorted. O(|a| + |b|). */
export function intersect(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i]! < b[j]!) i++;
    else if (a[i]! > b[j]!) j++;
    else {
      out.push(a[i]!);
      i++;
      j++;
    }
  }
  return out;
}

/** @internal Positions in sorted `big` of the members of sorted `small` (a subset of it). */
export function positionsIn(small: readonly number[], big: readonly number[]): number[] {
  const out: number[] = [];
  let j = 0;
  for (const a of small) {
    while (j < big.length && big[j] !== a) j++;
    if (j === big.length) throw new RangeError(`positionsIn: ${a} is not in [${big.join(", ")}]`);
    out.push(j++);
  }
  return out;
}

/** @internal A string key of a sorted attribute set. */
export function setKey(attributes: readonly number[]): string {
  return attributes.join(",");
}
