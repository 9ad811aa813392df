import { DuckDBUUIDValue, type DuckDBVector } from "@duckdb/node-api";

/** Write `values[start..end)` into an INTEGER vector (its row 0 is `start`). O(end - start). */
export function setIntegers(
  vector: DuckDBVector,
  values: ArrayLike<number>,
  start: number,
  end: number,
): void {
  for (let row = start; row < end; row++) vector.setItem(row - start, values[row]!);
  vector.flush();
}

/** Whether this machine stores integers little-endian (as DuckDB's vectors then do). */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Write the 64-bit integers of rows `from` to `to` (`words[2 * row]` the low
 * 32 bits, `words[2 * row + 1]` the high ones) into a chunk's BIGINT vector:
 * copied as 32-bit words into its `BigInt64Array` when it exposes one on a
 * little-endian machine (@duckdb/node-api 1.5.6's `items`), else one BigInt per row. O(rows).
 */
export function writeBigInts(vector: DuckDBVector, words: Int32Array, from: number, to: number): void {
  const items = (vector as unknown as { items?: unknown }).items;
  if (LITTLE_ENDIAN && items instanceof BigInt64Array && items.length === to - from) {
    new Int32Array(items.buffer, items.byteOffset, 2 * (to - from)).set(words.subarray(2 * from, 2 * to));
  } else {
    for (let row = from; row < to; row++)
      vector.setItem(row - from, (BigInt(words[2 * row + 1]!) << 32n) | BigInt(words[2 * row]! >>> 0));
  }
  vector.flush();
}

/**
 * Write the ids of staged rows `from` to `to` into a chunk's UUID vector. DuckDB
 * holds a UUID as a 128-bit integer with its top bit flipped, least significant
 * 64 bits first, little-endian: written straight into the vector's buffer when
 * the vector exposes it (@duckdb/node-api 1.5.6's `DuckDBUUIDVector.dataView`,
 * 0.2 us per id), else one `DuckDBUUIDValue` (a BigInt) per id. O(rows).
 */
export function writeUuids(vector: DuckDBVector, ids: Uint32Array, from: number, to: number): void {
  const data = (vector as unknown as { dataView?: unknown }).dataView;
  if (data instanceof DataView && data.byteLength === 16 * (to - from)) {
    for (let row = from; row < to; row++) {
      const at = 16 * (row - from);
      data.setUint32(at, ids[4 * row + 3]!, true);
      data.setUint32(at + 4, ids[4 * row + 2]!, true);
      data.setUint32(at + 8, ids[4 * row + 1]!, true);
      data.setUint32(at + 12, (ids[4 * row]! ^ 0x80000000) >>> 0, true);
    }
  } else {
    for (let row = from; row < to; row++) {
      let value = 0n;
      for (let w = 0; w < 4; w++) value = (value << 32n) | BigInt(ids[4 * row + w]!);
      vector.setItem(row - from, DuckDBUUIDValue.fromUint128(value));
    }
  }
  vector.flush();
}
