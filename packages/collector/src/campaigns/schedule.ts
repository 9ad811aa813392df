import { reject } from "../errors.js";

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * `"90s" | "15m" | "1h" | "1d"` (a positive integer and a unit) or a number of
 * milliseconds (an integer >= 1000) -> milliseconds; throws `RequestRejectedError`
 * (400, "invalid-campaign") otherwise. O(1).
 */
export function parseRoundEvery(value: string | number): number {
  if (typeof value === "number") {
    if (Number.isSafeInteger(value) && value >= 1000) return value;
  } else {
    const match = /^([1-9][0-9]{0,6})([smhd])$/.exec(value);
    if (match) return Number(match[1]) * UNITS[match[2]!]!;
  }
  return reject(
    400,
    "invalid-campaign",
    `roundEvery must be like 90s, 15m, 1h or 1d, or milliseconds >= 1000 (got ${JSON.stringify(value)})`,
  );
}
