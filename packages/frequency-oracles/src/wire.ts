import { malformed } from "./errors.js";

/** First byte of every encoded report. */
export const REPORT_MAGIC = 0xca;
/** Wire format version written by {@link encodeReportWords}. */
export const REPORT_FORMAT_VERSION = 1;

const ID_PATTERN = /^[a-z0-9-]{1,32}$/;

/** @internal Whether `id` can travel in a report (1..32 of [a-z0-9-]). */
export function isWireId(id: string): boolean {
  return ID_PATTERN.test(id);
}

/**
 * Encode one packed report. Layout (all integers little-endian):
 *
 * | bytes | content |
 * |---|---|
 * | 0 | magic 0xCA |
 * | 1 | format version (1) |
 * | 2 | L = length of the oracle id |
 * | 3 .. 3+L | oracle id, ASCII `[a-z0-9-]` |
 * | 3+L .. 7+L | parameter fingerprint, uint32 |
 * | 7+L .. 7+L+4*stride | the report's `stride` payload words, uint32 each |
 *
 * O(stride + L). A GRR report is 14 bytes; an OUE report over D = 64 values 18.
 */
export function encodeReportWords(
  id: string,
  fingerprint: number,
  words: Uint32Array,
  offset: number,
  stride: number,
): Uint8Array {
  const header = 7 + id.length;
  const bytes = new Uint8Array(header + 4 * stride);
  const view = new DataView(bytes.buffer);
  bytes[0] = REPORT_MAGIC;
  bytes[1] = REPORT_FORMAT_VERSION;
  bytes[2] = id.length;
  for (let i = 0; i < id.length; i++) bytes[3 + i] = id.charCodeAt(i);
  view.setUint32(3 + id.length, fingerprint >>> 0, true);
  for (let j = 0; j < stride; j++) view.setUint32(header + 4 * j, words[offset + j]! >>> 0, true);
  return bytes;
}

/**
 * Parse the envelope of an encoded report for oracle `id` with `fingerprint` and
 * copy its `stride` payload words into `out`. Checks, in order: type, minimum
 * length, magic, version, id, total length, fingerprint; throws
 * MalformedReportError naming the first failed check. The payload's values are
 * checked by the oracle afterwards. O(bytes.length).
 */
export function decodeReportWords(
  where: string,
  bytes: unknown,
  id: string,
  fingerprint: number,
  stride: number,
  out: Uint32Array,
): void {
  if (!(bytes instanceof Uint8Array))
    malformed(where, "type", `report must be a Uint8Array (got ${describe(bytes)})`);
  if (bytes.length < 3)
    malformed(where, "length", `report has ${bytes.length} bytes, fewer than the 3-byte header`);
  if (bytes[0] !== REPORT_MAGIC) {
    malformed(where, "magic", `first byte must be 0x${hex(REPORT_MAGIC, 2)} (got 0x${hex(bytes[0]!, 2)})`);
  }
  if (bytes[1] !== REPORT_FORMAT_VERSION) {
    malformed(where, "version", `format version must be ${REPORT_FORMAT_VERSION} (got ${bytes[1]})`);
  }
  const idLength = bytes[2]!;
  if (bytes.length < 3 + idLength) {
    malformed(
      where,
      "length",
      `report has ${bytes.length} bytes, too few for its ${idLength}-byte oracle id`,
    );
  }
  let reportId = "";
  for (let i = 0; i < idLength; i++) reportId += String.fromCharCode(bytes[3 + i]!);
  if (reportId !== id) {
    malformed(where, "oracle", `report is for oracle ${JSON.stringify(reportId)}, not ${JSON.stringify(id)}`);
  }
  const header = 7 + idLength;
  const expected = header + 4 * stride;
  if (bytes.length !== expected) {
    malformed(where, "length", `report must have ${expected} bytes (got ${bytes.length})`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const reportFingerprint = view.getUint32(3 + idLength, true);
  if (reportFingerprint !== fingerprint) {
    malformed(
      where,
      "fingerprint",
      `parameter fingerprint 0x${hex(reportFingerprint, 8)} does not match this oracle's 0x${hex(fingerprint, 8)} (different eps, domain or parameters)`,
    );
  }
  for (let j = 0; j < stride; j++) out[j] = view.getUint32(header + 4 * j, true);
}

function hex(value: number, digits: number): string {
  return value.toString(16).padStart(digits, "0");
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "object") return (value as object).constructor?.name ?? "object";
  return typeof value;
}
