import { defaultCryptoRng, type Rng } from "@calm-ldp/random";

/** A report id: a lower-case UUID in its canonical 8-4-4-4-12 form. */
export const REPORT_ID_PATTERN = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$";

const REPORT_ID = new RegExp(REPORT_ID_PATTERN);

/** Whether `id` is a valid report id ({@link REPORT_ID_PATTERN}). O(1). */
export function isReportId(id: unknown): id is string {
  return typeof id === "string" && REPORT_ID.test(id);
}

/**
 * A fresh report id, the default of `createReport` and of reporters: a random
 * (version 4, RFC 9562 §5.4) UUID, 122 random bits from four words of `rng`
 * (default: the platform's cryptographic generator). It carries nothing about
 * the device: no clock, no counter, nothing shared with the device's other
 * reports, so ids cannot link one user's reports across rounds (the client
 * README's "Report ids" and `test/linkage.test.ts` of the collector). Two ids
 * collide with probability 2^-122 per pair: about n^2 / 2^123 for n ids. O(1).
 */
export function createReportId(rng: Rng = defaultCryptoRng()): string {
  const hex = randomHex(rng);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variantDigit(hex[16]!)}${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/** The same as {@link createReportId} (a random version-4 id), under its older name. O(1). */
export const createRandomReportId: (rng?: Rng) => string = createReportId;

/**
 * A time-ordered (version 7, RFC 9562 §5.7) UUID, opt-in only: its first 48 bits
 * are `now` in milliseconds since the Unix epoch (big-endian), then the version,
 * 12 random bits, the variant and 62 random bits (74 random bits from four words
 * of `rng`, as {@link createReportId} draws). Two ids collide only in the same
 * millisecond, with probability 2^-74 per pair.
 *
 * Privacy: with the default `now = Date.now()` every id tells the collector the
 * device's clock to the millisecond, and so, against the arrival time it sees
 * anyway, the device's clock offset: a stable per-device fingerprint that links
 * one user's reports across rounds (measured in the collector's
 * `test/linkage.test.ts`: the offsets link most reports). This was the default
 * before; it is kept for tests and for deployments where reports are linked
 * anyway. A store that keeps ids in a B-tree inserts these near its right edge;
 * see the collector README for what that saves. O(1).
 */
export function createTimeOrderedReportId(rng: Rng = defaultCryptoRng(), now: number = Date.now()): string {
  if (!Number.isSafeInteger(now) || now < 0 || now >= 2 ** 48)
    throw new RangeError(
      `createTimeOrderedReportId: now must be an integer number of milliseconds in [0, 2^48) (got ${now})`,
    );
  const hex = randomHex(rng);
  const time = now.toString(16).padStart(12, "0");
  return `${time.slice(0, 8)}-${time.slice(8)}-7${hex.slice(0, 3)}-${variantDigit(hex[3]!)}${hex.slice(4, 7)}-${hex.slice(7, 19)}`;
}

/** 32 hex digits from four words of `rng`. */
function randomHex(rng: Rng): string {
  let hex = "";
  for (let i = 0; i < 4; i++) hex += (rng.nextUint32() >>> 0).toString(16).padStart(8, "0");
  return hex;
}

/** The RFC 9562 variant (binary 10xx) in place of the hex digit `digit`'s top two bits. */
const variantDigit = (digit: string) => ((Number.parseInt(digit, 16) & 3) | 8).toString(16);
