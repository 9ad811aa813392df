import type { CalmPlan } from "@calm-ldp/calm-core";
import { readPlan } from "@calm-ldp/client";
import { perObject } from "@calm-ldp/marginal-algebra";
import type { RoundCounts, RoundRequest, RoundState, StoredRound, SupportCounts } from "./api.js";
import { StorageError } from "./errors.js";

/**
 * A round's plan from its stored column (the JSON text `createRound` wrote),
 * checked by `readPlan`. O(plan size).
 * @internal
 */
export function planFromColumn(plan: unknown): CalmPlan {
  return readPlan(JSON.parse(String(plan))) as CalmPlan;
}

/**
 * A stored round from its row `[round_no, round_id, created_at, plan JSON,
 * request JSON]` (both backends select these columns). The plan is checked with
 * `readPlan` on the way out ({@link planFromColumn}). O(plan size).
 * @internal
 */
export function roundFromRow(row: readonly unknown[]): StoredRound {
  const [no, id, createdAt, plan, request] = row;
  return {
    no: Number(no),
    id: String(id),
    createdAt: String(createdAt),
    plan: planFromColumn(plan),
    request: JSON.parse(String(request)) as RoundRequest,
  };
}

/**
 * The aggregate of a round from the rows of `GROUP BY view` (`[view, reports]`)
 * and `GROUP BY view, cell` (`[view, cell, count]`): reports per view, and per
 * view the support count of every cell (0 for cells no report supports). Throws
 * `StorageError` on a row outside the plan (which validated storage never holds).
 * O(m + sum of view cells + rows).
 * @internal
 */
export function supportFromRows(
  plan: CalmPlan,
  reportRows: readonly (readonly unknown[])[],
  supportRows: readonly (readonly unknown[])[],
): SupportCounts {
  const reportsPerView = new Array<number>(plan.views.length).fill(0);
  const support = plan.views.map((view) => new Float64Array(view.cells));
  for (const [view, count] of reportRows) {
    const v = Number(view);
    if (!(v >= 0 && v < plan.views.length)) throw new StorageError(`stored report of unknown view ${v}`);
    reportsPerView[v] = Number(count);
  }
  for (const [view, cell, count] of supportRows) {
    const table = support[Number(view)];
    const x = Number(cell);
    if (!table || !(x >= 0 && x < table.length))
      throw new StorageError(`stored support row outside the plan (view ${view}, cell ${cell})`);
    table[x] = Number(count);
  }
  return { reportsPerView, support };
}

/**
 * A round's status from its two aggregates (both backends run the same SQL):
 * `[view, count]` rows of `GROUP BY view` over the reports, and `[name, value]`
 * rows of its counters (`duplicates`, `rejected:<reason>`, `dropped:<reason>:<view>`).
 * O(views + counters).
 * @internal
 */
export function countsFromRows(
  round: StoredRound,
  perViewRows: readonly (readonly unknown[])[],
  counterRows: readonly (readonly unknown[])[],
): RoundCounts {
  const perView = new Array<number>(round.plan.views.length).fill(0);
  for (const [view, count] of perViewRows) {
    if (!((view as number) < perView.length)) throw new StorageError(`stored report of unknown view ${view}`);
    perView[view as number] = count as number;
  }
  const rejected: Record<string, number> = {};
  const dropped: Record<string, number[]> = {};
  let duplicates = 0;
  for (const [name, value] of counterRows) {
    const text = name as string;
    if (text === "duplicates") duplicates = value as number;
    else if (text.startsWith(REJECTED)) rejected[text.slice(REJECTED.length)] = value as number;
    else if (text.startsWith(DROPPED)) {
      const [reason, view] = droppedCounter(text);
      if (!(view < perView.length)) throw new StorageError(`stored drop counter of unknown view: ${text}`);
      dropped[reason] ??= new Array<number>(perView.length).fill(0);
      dropped[reason][view] = Number(value);
    }
  }
  return { accepted: perView.reduce((s, x) => s + x, 0), duplicates, rejected, perView, dropped };
}

const REJECTED = "rejected:";
const DROPPED = "dropped:";

/**
 * The counter that counts view `view`'s reports dropped for `reason`:
 * `dropped:<reason>:<view>` (in the counters table beside `duplicates` and
 * `rejected:<reason>`, so no schema change). @internal
 */
const droppedCounterName = (reason: string, view: number): string => `${DROPPED}${reason}:${view}`;

/** The counter increments of `countDropped(round, reason, perView)`: one per view with drops. O(views). @internal */
export const droppedCounters = (reason: string, perView: readonly number[]) =>
  [...perView.entries()]
    .filter(([, amount]) => amount > 0)
    .map(([view, amount]) => ({ name: droppedCounterName(reason, view), amount }));

/** [reason, view] of a `dropped:<reason>:<view>` counter name. */
function droppedCounter(name: string): [string, number] {
  const at = name.lastIndexOf(":");
  return [name.slice(DROPPED.length, at), Number(name.slice(at + 1))];
}

/**
 * The `cell` of a closed-counts row that holds the number of reports of a view
 * (every real cell is >= 0). @internal
 */
export const REPORTS_MARK = -1;

/** A round's state from its `[closed_at, ids_dropped_at]` row (none: open). @internal */
export function stateFromRow(row: readonly unknown[] | undefined): RoundState {
  const text = (value: unknown) =>
    value === null || value === undefined || value === "" ? null : String(value);
  return { closedAt: text(row?.[0]), idsDroppedAt: text(row?.[1]) };
}

/**
 * Where each view's cells start when a plan's support counts are laid out flat,
 * view after view (as both SQL storages count a group's support): `offsets[v]`
 * the first flat index of view v, `offsets[m]` the plan's cells in all. Cached
 * per plan. O(m).
 * @internal
 */
export const cellOffsets = perObject((plan: CalmPlan): Int32Array => {
  const offsets = new Int32Array(plan.views.length + 1);
  plan.views.forEach((view, v) => {
    offsets[v + 1] = offsets[v]! + view.cells;
  });
  return offsets;
});
