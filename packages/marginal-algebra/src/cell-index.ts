import { fail } from "./errors.js";

/** Largest number of cells a table may have (indices fit in a Uint32Array with room to spare). */
export const MAX_CELLS = 2 ** 31;

/**
 * Number of cells `|V_A| = prod c_i` of a table with these cardinalities (1 for
 * the empty set). Throws when a cardinality is not an integer >= 1 or the product
 * exceeds 2^31. O(k).
 */
export function cellCount(cardinalities: readonly number[]): number {
  let size = 1;
  for (const c of cardinalities) {
    if (!Number.isInteger(c) || c < 1)
      fail("cellCount", "cardinalities must be integers >= 1", cardinalities);
    size *= c;
    if (size > MAX_CELLS) fail("cellCount", "a table may have at most 2^31 cells", cardinalities);
  }
  return size;
}

/**
 * Mixed-radix cell index of `values` (one value per table attribute, in the
 * table's attribute order), first attribute most significant (../../../docs/algorithms.md#notation):
 * `((v_1 * c_2 + v_2) * c_3 + v_3) ...`. Throws on a value outside [0, c_i). O(k).
 */
export function cellIndex(values: ArrayLike<number>, cardinalities: readonly number[]): number {
  if (values.length !== cardinalities.length) {
    fail("cellIndex", `values must have one entry per attribute (${cardinalities.length})`, values.length);
  }
  let index = 0;
  for (let i = 0; i < cardinalities.length; i++) {
    const v = values[i]!;
    const c = cardinalities[i]!;
    if (!Number.isInteger(v) || v < 0 || v >= c)
      fail("cellIndex", `value ${i} must be an integer in [0, ${c})`, v);
    index = index * c + v;
  }
  return index;
}

/**
 * The values (one per table attribute) of cell `index`: the inverse of
 * {@link cellIndex}. Writes into `out` when given. O(k).
 */
export function cellValues(index: number, cardinalities: readonly number[], out?: number[]): number[] {
  const size = cellCount(cardinalities);
  if (!Number.isInteger(index) || index < 0 || index >= size)
    fail("cellValues", `index must be an integer in [0, ${size})`, index);
  const values = out ?? new Array<number>(cardinalities.length);
  values.length = cardinalities.length;
  for (let i = cardinalities.length - 1; i >= 0; i--) {
    const c = cardinalities[i]!;
    values[i] = index % c;
    index = Math.floor(index / c);
  }
  return values;
}

/**
 * Cell index, in the table over `attributes` (ascending schema indices, with
 * their `cardinalities`), of a whole record (`record[a]` = value of attribute a):
 * what a client computes to project her record onto a view. Throws on a value
 * outside [0, c). O(k).
 */
export function recordCellIndex(
  record: ArrayLike<number>,
  attributes: readonly number[],
  cardinalities: readonly number[],
): number {
  let index = 0;
  for (let i = 0; i < attributes.length; i++) {
    const a = attributes[i]!;
    const v = record[a];
    const c = cardinalities[i]!;
    if (v === undefined || !Number.isInteger(v) || v < 0 || v >= c) {
      fail("recordCellIndex", `value of attribute ${a} must be an integer in [0, ${c})`, v);
    }
    index = index * c + v;
  }
  return index;
}
