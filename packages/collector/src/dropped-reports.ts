import type { CollectorStorage, RoundCounts, StoredRound } from "./api.js";

/** The reason the per-report unary check (defences/unary-report-check.ts) drops a report for. */
export const UNARY_DROP_REASON = "unary-count";

/** A round's reports dropped for one reason: in all, and per view. */
export interface DroppedCount {
  readonly reports: number;
  readonly perView: readonly number[];
}

/** Where the report endpoint counts reports it acknowledged but did not store, and where status reads them. */
export interface DroppedReports {
  /** Count `reports` (their views) as dropped for `reason` in `round`; resolves after the storage committed. */
  add(round: StoredRound, reason: string, reports: readonly { readonly view: number }[]): Promise<void>;
  /** The round's dropped reports for `reason`, from its `counts` (read by the caller). */
  of(round: StoredRound, counts: RoundCounts, reason: string): DroppedCount;
}

/** Per view of `round`, how many of `reports` are of that view. O(reports + views). */
function perViewOf(round: StoredRound, reports: readonly { readonly view: number }[]): number[] {
  const perView = new Array<number>(round.plan.views.length).fill(0);
  for (const { view } of reports) perView[view] = (perView[view] ?? 0) + 1;
  return perView;
}

const total = (perView: readonly number[]) => perView.reduce((s, x) => s + x, 0);

/**
 * Dropped-report counts through `storage`: its `countDropped` (database counters,
 * so they survive restarts and every collector process on the storage sees the
 * same count; read back in `counts(round).dropped`), or, for a storage without it,
 * this process's memory since start. A re-sent batch counts its dropped reports
 * again (their ids are not stored, so nothing de-duplicates them): the count is of
 * dropped submissions. O(reports + views) per batch, one storage write when
 * anything was dropped.
 */
export function droppedReports(storage: CollectorStorage): DroppedReports {
  if (storage.countDropped) {
    const count = storage.countDropped.bind(storage);
    return {
      add: (round, reason, reports) => count(round, reason, perViewOf(round, reports)),
      of: (round, counts, reason) => {
        const perView = counts.dropped?.[reason] ?? new Array<number>(round.plan.views.length).fill(0);
        return { reports: total(perView), perView };
      },
    };
  }
  const memory = new Map<string, number[]>();
  return {
    add: async (round, reason, reports) => {
      const key = `${round.id} ${reason}`;
      const add = perViewOf(round, reports);
      const sum = memory.get(key) ?? add.map(() => 0);
      memory.set(
        key,
        sum.map((x, v) => x + add[v]!),
      );
    },
    of: (round, _counts, reason) => {
      const perView =
        memory.get(`${round.id} ${reason}`) ?? new Array<number>(round.plan.views.length).fill(0);
      return { reports: total(perView), perView };
    },
  };
}
