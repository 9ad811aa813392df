import type { AcceptedReport } from "../../api.js";
import { uuidWords } from "../../uuid-set.js";

// Parameters in PostgreSQL's binary array format: a Buffer parameter goes to the server as it is,
// with no per-element conversion in the driver and no text parsing on the server.

/** Array element type oids of PostgreSQL's binary array format. */
export const INT4_OID = 23;
const UUID_OID = 2950;

/**
 * The header of a one-dimensional array of `n` elements of type `oid` in
 * PostgreSQL's binary format (what `array_recv` reads), in a buffer of
 * `20 + n * (4 + size)` bytes whose element slots follow at offset 20.
 */
export function binaryArrayBuffer(n: number, oid: number, size: number): Buffer {
  const buffer = Buffer.allocUnsafe(n === 0 ? 12 : 20 + n * (4 + size));
  buffer.writeInt32BE(n === 0 ? 0 : 1, 0); // dimensions
  buffer.writeInt32BE(0, 4); // no nulls
  buffer.writeInt32BE(oid, 8);
  if (n > 0) {
    buffer.writeInt32BE(n, 12);
    buffer.writeInt32BE(1, 16); // lower bound
  }
  return buffer;
}

/** `int4[]` of `value(entry)` in binary format (a Buffer parameter: the driver sends it as is). O(entries). */
export function binaryInt4Array<T>(entries: readonly T[], value: (entry: T) => number): Buffer {
  const buffer = binaryArrayBuffer(entries.length, INT4_OID, 4);
  const data = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let at = 20;
  for (const entry of entries) {
    data.setInt32(at, 4);
    data.setInt32(at + 4, value(entry));
    at += 8;
  }
  return buffer;
}

/**
 * `uuid[]` of the entries' report ids in binary format, 20 bytes per id (the
 * text literal is 37 bytes per id and the server parses each one): each id's
 * four words ({@link uuidWords}) big-endian. The ids are lower-case canonical
 * UUIDs (checked by `decodeReport`). O(entries).
 */
export function binaryUuidArray(entries: readonly { readonly report: AcceptedReport }[]): Buffer {
  const buffer = binaryArrayBuffer(entries.length, UUID_OID, 16);
  const data = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  const words = new Uint32Array(4);
  let at = 20;
  for (const entry of entries) {
    uuidWords(entry.report.id, words, 0);
    data.setInt32(at, 16); // the element's length
    for (let w = 0; w < 4; w++) data.setUint32(at + 4 + 4 * w, words[w]!);
    at += 20;
  }
  return buffer;
}

/** A PostgreSQL array literal of integers (sent as text: cheaper than the driver's per-element conversion). */
export function intArray(values: readonly number[]): string {
  return `{${values.join(",")}}`;
}
