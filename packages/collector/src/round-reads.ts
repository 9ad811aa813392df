import type { CollectorStorage, RoundReads, RoundStatus, StoredRound } from "./api.js";
import { StorageError } from "./errors.js";

/** Most rounds one batched read names (its SQL lists their numbers: ~10 bytes each). */
export const ROUND_READS_CHUNK = 1000;

/**
 * The storage's batched reads of many rounds (`storage.roundReads()`), called
 * with at most ROUND_READS_CHUNK rounds at a time; a storage without them is read
 * round by round (`roundState`, `counts`, `heldIds`, `supportCounts`, all at once).
 * Cost: a backend's batch is a fixed number of queries per chunk; the fallback
 * one to three queries per round.
 */
export function roundReadsOf(storage: CollectorStorage): RoundReads {
  if (typeof storage.roundReads !== "function")
    return {
      states: (rounds) => Promise.all(rounds.map((round) => storage.roundState(round))),
      statuses: (rounds) => Promise.all(rounds.map((round) => roundStatus(storage, round))),
      support: (rounds) => Promise.all(rounds.map((round) => storage.supportCounts(round))),
    };
  // Awaited: a storage wrapped so that every method answers a promise (tests' fault injection,
  // a proxy failing every call while "down") still works, and fails as its other calls do.
  const batched = async () => (await storage.roundReads!()) as RoundReads;
  return {
    states: (rounds) => chunked(rounds, async (part) => (await batched()).states(part)),
    statuses: (rounds) => chunked(rounds, async (part) => (await batched()).statuses(part)),
    support: (rounds) => chunked(rounds, async (part) => (await batched()).support(part)),
  };
}

/** One round's `RoundStatus`, read round by round: three storage queries. */
export async function roundStatus(storage: CollectorStorage, round: StoredRound): Promise<RoundStatus> {
  const [counts, state, idsHeld] = await Promise.all([
    storage.counts(round),
    storage.roundState(round),
    storage.heldIds(round),
  ]);
  return { counts, state, idsHeld };
}

async function chunked<T>(
  rounds: readonly StoredRound[],
  read: (part: readonly StoredRound[]) => Promise<T[]>,
): Promise<T[]> {
  const answers: T[] = [];
  for (let start = 0; start < rounds.length; start += ROUND_READS_CHUNK)
    answers.push(...(await read(rounds.slice(start, start + ROUND_READS_CHUNK))));
  return answers;
}

/**
 * The rounds' numbers as an SQL list `(3,5,8)`: every number is checked to be a
 * non-negative safe integer (they come from the database, never from a request),
 * so the text is digits and commas only. O(rounds).
 */
export function roundList(rounds: readonly StoredRound[]): string {
  for (const round of rounds)
    if (!(Number.isSafeInteger(round.no) && round.no >= 0))
      throw new StorageError(`round ${round.id} has no valid round number (${round.no})`);
  return `(${rounds.map((round) => round.no).join(",")})`;
}

/**
 * Rows whose first column is a round number, grouped by round: per round number,
 * its rows without that column. O(rows).
 */
export function rowsByRound(rows: readonly (readonly unknown[])[]): Map<number, unknown[][]> {
  const grouped = new Map<number, unknown[][]>();
  for (const [no, ...rest] of rows) {
    const key = Number(no);
    const list = grouped.get(key);
    if (list) list.push(rest);
    else grouped.set(key, [rest]);
  }
  return grouped;
}

/** Per round, in the order of `rounds`, what `build` makes of its grouped rows (none: an empty list). */
export function perRound<T>(
  rounds: readonly StoredRound[],
  grouped: Map<number, unknown[][]>,
  build: (round: StoredRound, rows: unknown[][]) => T,
): T[] {
  return rounds.map((round) => build(round, grouped.get(round.no) ?? []));
}
