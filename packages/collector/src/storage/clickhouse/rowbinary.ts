import type { AcceptedReport } from "../../api.js";

/**
 * A UUID's 16 bytes in RowBinary at `at`, from its four 32-bit words (most
 * significant first, see `uuidWords`): each 64-bit half little-endian, so the
 * second word, then the first, then the fourth, then the third. O(1), no allocation.
 */
function writeUuid(out: Buffer, at: number, words: Uint32Array, w: number): void {
  out.writeUInt32LE(words[w + 1]!, at);
  out.writeUInt32LE(words[w]!, at + 4);
  out.writeUInt32LE(words[w + 3]!, at + 8);
  out.writeUInt32LE(words[w + 2]!, at + 12);
}

/** The first `count` ids of `words` (four words each) as RowBinary UUIDs, 16 bytes each. O(count). */
export function uuidsBinary(words: Uint32Array, count: number): Buffer {
  const out = Buffer.allocUnsafe(16 * count);
  for (let i = 0; i < count; i++) writeUuid(out, 16 * i, words, 4 * i);
  return out;
}

/** Bytes of one row of `calm_reports` in RowBinary, before its cells: round (8), id (16), view (4), cell count (varint). */
const ROW_HEAD = 8 + 16 + 4 + 5;

/**
 * Reports as `calm_reports` rows `(round_no UInt64, report_id UUID, view UInt32,
 * cells Array(UInt32))` in ClickHouse's RowBinary format: integers little-endian,
 * a UUID as its two 64-bit halves (the first 16 hex digits, then the last 16), each
 * little-endian, an array as a LEB128 length and its elements. Report i's id is
 * given as words `4i..4i+3` of `words` (parsed once, see `uuidWords`). One buffer,
 * sized before writing, no allocation per row. O(reports x cells), ~30 + 4 x cells
 * bytes per report.
 */
export function reportRowsBinary(
  round: number,
  reports: readonly AcceptedReport[],
  words: Uint32Array,
): Buffer {
  let size = 0;
  for (const report of reports) size += ROW_HEAD + 4 * report.cells.length;
  const out = Buffer.allocUnsafe(size);
  const high = Math.floor(round / 2 ** 32);
  const low = round >>> 0;
  let at = 0;
  for (let r = 0; r < reports.length; r++) {
    const report = reports[r]!;
    out.writeUInt32LE(low, at);
    out.writeUInt32LE(high, at + 4);
    writeUuid(out, at + 8, words, 4 * r);
    out.writeUInt32LE(report.view, at + 24);
    at += 28;
    const cells = report.cells;
    let length = cells.length;
    do {
      const byte = length & 0x7f;
      length >>>= 7;
      out[at++] = length > 0 ? byte | 0x80 : byte;
    } while (length > 0);
    for (let c = 0; c < cells.length; c++) {
      out.writeUInt32LE(cells[c]!, at);
      at += 4;
    }
  }
  return out.subarray(0, at);
}
