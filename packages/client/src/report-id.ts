import { defaultCryptoRng, type Rng } from "@calm-ldp/random";

/** A report id: a lower-case UUID in its canonical 8-4-4-4-12 form. */
export const REPORT_ID_PATTERN = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$";

const REPORT_ID = new RegExp(REPORT_ID_PATTERN);

/** Whether `id` is a valid report id ({@link REPORT_ID_PATTERN}). O(1). */
export function isReportId(id: unknown): id is string {
  return typeof id === "string" && REPORT_ID.test(id);
}

/**
 * A fresh report id: a time-ordered (version 7, RFC 9562 §5.7) UUID. Its first 48
 * bits are `now` in milliseconds since the Unix epoch (big-endian), then the
 * version, 12 random bits, the variant and 62 random bits: 74 random bits from
 * `rng` (default: the platform's cryptographic generator; four words are drawn,
 * as for the random version-4 ids of earlier releases, so seeded simulations keep
 * their streams). Two ids collide only in the same millisecond, with probability
 * 2^-74 per pair: at most m^2 / 2^75 for m ids made in one millisecond.
 *
 * Why time-ordered: the collector de-duplicates by id, and a store that keeps
 * its ids in a B-tree (PostgreSQL's key) inserts ids that arrive in about the
 * order they were made near the tree's right edge, in pages already in memory,
 * instead of at a random leaf of the whole index (see the collector README's
 * ingest figures). What the id tells the collector beyond the report itself: the
 * millisecond it was made, which for a report sent at once is its arrival time,
 * and for a queued or retried one the time it was first made. It does not depend
 * on the record, so the report's privacy guarantee is unchanged. A client that
 * wants no timestamp passes its own id (e.g. {@link createRandomReportId}). O(1).
 */
export function createReportId(rng: Rng = defaultCryptoRng(), now: number = Date.now()): string {
  if (!Number.isSafeInteger(now) || now < 0 || now >= 2 ** 48)
    throw new RangeError(
      `createReportId: now must be an integer number of milliseconds in [0, 2^48) (got ${now})`,
    );
  const hex = randomHex(rng);
  const time = now.toString(16).padStart(12, "0");
  return `${time.slice(0, 8)}-${time.slice(8)}-7${hex.slice(0, 3)}-${variantDigit(hex[3]!)}${hex.slice(4, 7)}-${hex.slice(7, 19)}`;
}

/**
 * A fresh random (version 4, RFC 9562 §5.4) report id: 122 random bits from four
 * words of `rng`, so two clients collide with probability about n^2 / 2^123, and
 * nothing about when it was made. Stores that index ids in a B-tree insert these
 * at random leaves (slower ingest than {@link createReportId}'s). O(1).
 */
export function createRandomReportId(rng: Rng = defaultCryptoRng()): string {
  const hex = randomHex(rng);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variantDigit(hex[16]!)}${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/** 32 hex digits from four words of `rng`. */
function randomHex(rng: Rng): string {
  let hex = "";
  for (let i = 0; i < 4; i++) hex += (rng.nextUint32() >>> 0).toString(16).padStart(8, "0");
  return hex;
}

/** The RFC 9562 variant (binary 10xx) in place of the hex digit `digit`'s top two bits. */
const variantDigit = (digit: string) => ((Number.parseInt(digit, 16) & 3) | 8).toString(16);
