/**
 * @internal The marginal of a full table in mixed-radix order (first attribute most
 * significant; `cardinalities` of every attribute) over the attributes at
 * `positions` (ascending): `out[c] = sum of cells u whose digits at positions
 * are c`. Odometer walk with an incrementally updated target index: O(D), no
 * index map (full tables can be 2^24 cells). Writes into `out` (zeroed here).
 */
export function marginalizeMixed(
  cells: ArrayLike<number>,
  cardinalities: readonly number[],
  positions: readonly number[],
  out: Float64Array,
): Float64Array {
  out.fill(0);
  const d = cardinalities.length;
  const targetStride = new Array<number>(d).fill(0);
  let stride = 1;
  for (let p = positions.length - 1; p >= 0; p--) {
    targetStride[positions[p]!] = stride;
    stride *= cardinalities[positions[p]!]!;
  }
  // Innermost attribute handled in a tight loop.
  const last = d - 1;
  const lastCard = cardinalities[last]!;
  const lastStride = targetStride[last]!;
  const digits = new Array<number>(d).fill(0);
  let target = 0;
  for (let base = 0; base < cells.length; base += lastCard) {
    if (lastStride === 0) {
      let sum = 0;
      for (let v = 0; v < lastCard; v++) sum += cells[base + v]!;
      out[target]! += sum;
    } else {
      for (let v = 0; v < lastCard; v++) out[target + v * lastStride]! += cells[base + v]!;
    }
    for (let i = last - 1; i >= 0; i--) {
      digits[i]!++;
      target += targetStride[i]!;
      if (digits[i]! < cardinalities[i]!) break;
      target -= cardinalities[i]! * targetStride[i]!;
      digits[i] = 0;
    }
  }
  return out;
}

/**
 * @internal A table in mixed-radix order holding a query: `cells` over digits of
 * `radices` (first most significant), the query's attributes at `positions` in it
 * (ascending), as {@link marginalizeMixed} takes them.
 */
export interface QueryInTable {
  readonly cells: ArrayLike<number>;
  readonly radices: readonly number[];
  readonly positions: readonly number[];
}

/**
 * @internal The mean of the marginals of several tables over the same query (the
 * answer of a method that holds one table per group of attributes): table i is
 * `tableOf(i)`. `sum_i marginal_i / count` into a new array of `size` cells.
 * O(sum of table cells).
 */
export function meanOfMarginals(
  count: number,
  size: number,
  tableOf: (i: number) => QueryInTable,
): Float64Array {
  const sum = new Float64Array(size);
  const part = new Float64Array(size);
  for (let i = 0; i < count; i++) {
    const { cells, radices, positions } = tableOf(i);
    marginalizeMixed(cells, radices, positions, part);
    for (let u = 0; u < size; u++) sum[u]! += part[u]! / count;
  }
  return sum;
}
