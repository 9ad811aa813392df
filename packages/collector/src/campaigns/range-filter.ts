import { reject } from "../errors.js";
import type { IndexedRound } from "./types.js";

/** One end of a series range: a round index or a time (ms since the epoch); neither when absent. */
function bound(value: string | undefined, name: string): { index?: number; time?: number } {
  if (value === undefined) return {};
  if (/^[0-9]{1,9}$/.test(value)) return { index: Number(value) };
  const time = Date.parse(value);
  if (Number.isNaN(time))
    reject(
      400,
      "invalid-range",
      `${name} must be a round index or an ISO time (got ${JSON.stringify(value)})`,
    );
  return { time };
}

/**
 * `from`/`to`: both round indexes (integers) or ISO times compared with the
 * opening time (rounds opened in [from, to]) -> a predicate on campaign rounds;
 * 400 `invalid-range` for anything else. O(1) per round.
 */
export function rangeFilter(
  from: string | undefined,
  to: string | undefined,
): (round: IndexedRound) => boolean {
  const lo = bound(from, "from");
  const hi = bound(to, "to");
  return (round) => {
    const opened = Date.parse(round.createdAt);
    if (lo.index !== undefined && round.index < lo.index) return false;
    if (hi.index !== undefined && round.index > hi.index) return false;
    if (lo.time !== undefined && opened < lo.time) return false;
    if (hi.time !== undefined && opened > hi.time) return false;
    return true;
  };
}
