import type { RoundReads, RoundStatus, StoredRound, SupportCounts } from "../../api.js";
import { perRound, roundList, rowsByRound } from "../../round-reads.js";
import { countsFromRows, stateFromRow, supportFromRows } from "../../storage-rows.js";
import { REPORT_MARK } from "./write-offs.js";

/** What the ClickHouse storage lends its batched reads. */
export interface ClickHouseReadAccess {
  /** The collector's database. */
  readonly db: string;
  /** One query on one shard (its Distributed tables reach the others). */
  read(sql: string): Promise<unknown[][]>;
  /** One query on every shard at once (their local tables), each shard's rows. */
  readShards(sql: string): Promise<unknown[][][]>;
}

/** Per round: per view, per cell (REPORT_MARK: the view's reports), the count over every shard. */
type RoundTotals = Map<number, Map<number, Map<number, number>>>;

/**
 * The counts of the rounds `list` per (round, view, cell), as clickhouse-storage.ts
 * counts one round (`#cellCounts`): on every shard its maintained counts plus the
 * latest write-off of each id stored twice, the shards' answers added here.
 * O(rounds x views x cells x unmerged parts + ids stored twice) per shard.
 */
async function cellCountsOf(access: ClickHouseReadAccess, list: string): Promise<RoundTotals> {
  const { db } = access;
  const answers = await access.readShards(`SELECT round_no, view, cell, sum(n) FROM (
      SELECT round_no, view, cell, n FROM ${db}.calm_cell_counts WHERE round_no IN ${list}
      UNION ALL
      SELECT round_no, view, cell, argMax(n, copies) AS n FROM ${db}.calm_count_fixes
      WHERE round_no IN ${list} GROUP BY round_no, report_id, view, cell
    ) GROUP BY round_no, view, cell`);
  const totals: RoundTotals = new Map();
  for (const rows of answers)
    for (const [no, view, cell, n] of rows) {
      const round = totals.get(Number(no)) ?? new Map<number, Map<number, number>>();
      totals.set(Number(no), round);
      const cells = round.get(Number(view)) ?? new Map<number, number>();
      round.set(Number(view), cells);
      cells.set(Number(cell), (cells.get(Number(cell)) ?? 0) + Number(n));
    }
  return totals;
}

/**
 * The ClickHouse storage's reads of many rounds (see `RoundReads`): states one
 * query, support counts one per shard (all at once), statuses those plus the
 * counters and the held rows (Distributed tables): a fixed number of requests.
 */
export function clickHouseRoundReads(access: ClickHouseReadAccess): RoundReads {
  const states = async (rounds: readonly StoredRound[]) => {
    if (rounds.length === 0) return [];
    const rows = await access.read(
      `SELECT round_no, min(closed_at), max(ids_dropped_at) FROM ${access.db}.calm_round_state
       WHERE round_no IN ${roundList(rounds)} GROUP BY round_no`,
    );
    return perRound(rounds, rowsByRound(rows), (_, state) => stateFromRow(state[0]));
  };
  return {
    states,
    statuses: async (rounds) => {
      if (rounds.length === 0) return [];
      const list = roundList(rounds);
      const [totals, counters, held, closed] = await Promise.all([
        cellCountsOf(access, list),
        access.read(
          `SELECT round_no, name, sum(value) FROM ${access.db}.calm_counters_all
           WHERE round_no IN ${list} GROUP BY round_no, name`,
        ),
        access.read(
          `SELECT round_no, count() FROM ${access.db}.calm_reports_all WHERE round_no IN ${list} GROUP BY round_no`,
        ),
        states(rounds),
      ]);
      const named = rowsByRound(counters);
      const rows = rowsByRound(held);
      return rounds.map(
        (round, i): RoundStatus => ({
          counts: countsFromRows(
            round,
            [...(totals.get(round.no) ?? [])].map(([view, cells]) => [view, cells.get(REPORT_MARK) ?? 0]),
            (named.get(round.no) ?? []).map(([name, value]) => [name, Number(value)]),
          ),
          state: closed[i]!,
          idsHeld: Number(rows.get(round.no)?.[0]?.[0] ?? 0),
        }),
      );
    },
    support: async (rounds) => {
      if (rounds.length === 0) return [];
      const totals = await cellCountsOf(access, roundList(rounds));
      return rounds.map((round): SupportCounts => {
        const reportRows: unknown[][] = [];
        const supportRows: unknown[][] = [];
        for (const [view, cells] of totals.get(round.no) ?? [])
          for (const [cell, count] of cells) {
            if (cell === REPORT_MARK) reportRows.push([view, count]);
            else if (count !== 0) supportRows.push([view, cell, count]);
          }
        return supportFromRows(round.plan, reportRows, supportRows);
      });
    },
  };
}
