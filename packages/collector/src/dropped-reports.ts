import type { AcceptedReport, CollectorStorage, RoundCounts, StoredRound, StoreResult } from "./api.js";

/** The reason the per-report unary check (defences/unary-report-check.ts) drops a report for. */
export const UNARY_DROP_REASON = "unary-count";

/** A round's reports dropped for one reason: in all, and per view. */
export interface DroppedCount {
  readonly reports: number;
  readonly perView: readonly number[];
}

/** Where the report endpoint counts reports it acknowledged but did not store, and where status reads them. */
export interface DroppedReports {
  /**
   * Store `kept` in `round` and count `dropped` (their views) as dropped for
   * `reason`; resolves with the store's result after the storage committed. A
   * batch the storage refuses (round closed, storage down) counts nothing.
   */
  store(
    round: StoredRound,
    kept: readonly AcceptedReport[],
    reason: string,
    dropped: readonly AcceptedReport[],
  ): Promise<StoreResult>;
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
 * Dropped-report counts through `storage`, in database counters (they survive
 * restarts and every collector process on the storage sees the same count; read
 * back in `counts(round).dropped`): with `storeReportsAndDrops` (PostgreSQL) the
 * batch and its drops in one transaction, each dropped report id counted once (a
 * re-sent batch adds nothing); else `storeReports`, then `countDropped` (DuckDB,
 * ClickHouse: a second write, and a re-sent batch counts its dropped reports
 * again: their ids are not stored, so the count is of dropped submissions). A
 * storage with neither counts in this process's memory since start. O(reports +
 * views) per batch.
 */
export function droppedReports(storage: CollectorStorage): DroppedReports {
  const counted = countsOf(storage);
  if (storage.storeReportsAndDrops) {
    const storeBoth = storage.storeReportsAndDrops.bind(storage);
    return {
      store: (round, kept, reason, dropped) =>
        dropped.length === 0
          ? storage.storeReports(round, kept)
          : storeBoth(round, kept, { reason, reports: dropped }),
      of: counted.of,
    };
  }
  return {
    store: async (round, kept, reason, dropped) => {
      const result = await storage.storeReports(round, kept);
      // Counted once the kept ones are stored: a batch refused (round closed, storage down) counts nothing.
      if (dropped.length > 0) await counted.add(round, reason, dropped);
      return result;
    },
    of: counted.of,
  };
}

/** Counting drops after the store: the storage's `countDropped`, or this process's memory. */
function countsOf(storage: CollectorStorage): {
  add(round: StoredRound, reason: string, reports: readonly { readonly view: number }[]): Promise<void>;
  of: DroppedReports["of"];
} {
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
