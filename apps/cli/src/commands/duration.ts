import { UsageError } from "../cli-kit.js";

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A duration option (`90s | 15m | 1h | 7d | 0`) in milliseconds; a usage error
 * naming `flag` (e.g. `collector serve: --id-retention`) otherwise. O(1).
 */
export function parseDuration(value: string, flag: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(value.trim());
  if (value.trim() === "0") return 0;
  if (!match)
    throw new UsageError(
      `${flag} must be a duration like 90s, 15m, 1h, 7d or 0 (got ${JSON.stringify(value)})`,
    );
  return Math.round(Number(match[1]) * UNIT_MS[match[2]!]!);
}
