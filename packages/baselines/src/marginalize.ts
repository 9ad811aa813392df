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
