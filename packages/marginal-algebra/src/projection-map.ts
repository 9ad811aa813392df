import { cellCount } from "./cell-index.js";
import { fail } from "./errors.js";

/**
 * For a table with `cardinalities`, the cell index each of its cells maps to in
 * the table over the attributes at `positions` (ascending positions into
 * `cardinalities`; the projection target). Built attribute by attribute, first
 * attribute most significant: `map[j * c + v] = prev[j] + v * stride` where stride
 * is the attribute's stride in the target (0 when it is summed out). O(|V|).
 */
export function projectionMap(cardinalities: readonly number[], positions: readonly number[]): Uint32Array {
  const size = cellCount(cardinalities);
  const k = cardinalities.length;
  const strides = new Array<number>(k).fill(0);
  let stride = 1;
  for (let p = positions.length - 1; p >= 0; p--) {
    const position = positions[p]!;
    if (
      !Number.isInteger(position) ||
      position < 0 ||
      position >= k ||
      (p > 0 && positions[p - 1]! >= position)
    ) {
      fail("projectionMap", `positions must be strictly ascending integers in [0, ${k})`, positions);
    }
    strides[position] = stride;
    stride *= cardinalities[position]!;
  }
  const map = new Uint32Array(size);
  let filled = 1;
  for (let i = 0; i < k; i++) {
    const c = cardinalities[i]!;
    const s = strides[i]!;
    // Expand in place from the back so earlier entries are read before they are overwritten.
    for (let j = filled - 1; j >= 0; j--) {
      const base = map[j]!;
      const at = j * c;
      for (let v = c - 1; v >= 0; v--) map[at + v] = base + v * s;
    }
    filled *= c;
  }
  return map;
}

const cache = new Map<string, Uint32Array>();
let cachedCells = 0;
const CACHE_LIMIT = 1 << 23;

/** @internal {@link projectionMap}, memoised (bounded: the cache is cleared past 2^23 stored entries). */
export function cachedProjectionMap(
  cardinalities: readonly number[],
  positions: readonly number[],
): Uint32Array {
  const key = `${cardinalities.join(",")}|${positions.join(",")}`;
  let map = cache.get(key);
  if (map === undefined) {
    map = projectionMap(cardinalities, positions);
    if (cachedCells + map.length > CACHE_LIMIT) {
      cache.clear();
      cachedCells = 0;
    }
    cache.set(key, map);
    cachedCells += map.length;
  }
  return map;
}

/** @internal out[map[u]] += cells[u] over all u, after zeroing out. O(|cells|). */
export function projectCells(cells: Float64Array, map: Uint32Array, out: Float64Array): Float64Array {
  out.fill(0);
  const n = cells.length;
  for (let u = 0; u < n; u++) out[map[u]] += cells[u];
  return out;
}
