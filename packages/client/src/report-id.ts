import { defaultCryptoRng, type Rng } from "@calm-ldp/random";

/** A report id: a lower-case UUID in its canonical 8-4-4-4-12 form. */
export const REPORT_ID_PATTERN = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$";

const REPORT_ID = new RegExp(REPORT_ID_PATTERN);

/** Whether `id` is a valid report id ({@link REPORT_ID_PATTERN}). O(1). */
export function isReportId(id: unknown): id is string {
  return typeof id === "string" && REPORT_ID.test(id);
}

/**
 * A fresh report id: a random (version 4, RFC 9562 §5.4) UUID from four words of
 * `rng` (default: the platform's cryptographic generator), 122 random bits, so two
 * clients collide with probability about n^2 / 2^123. O(1).
 */
export function createReportId(rng: Rng = defaultCryptoRng()): string {
  let hex = "";
  for (let i = 0; i < 4; i++) hex += (rng.nextUint32() >>> 0).toString(16).padStart(8, "0");
  const variant = ((Number.parseInt(hex[16]!, 16) & 3) | 8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20)}`;
}
