import type { RoundReads, RoundState, RoundStatus, StoredRound, SupportCounts } from "../../api.js";
import { perRound, roundList, rowsByRound } from "../../round-reads.js";
import { countsFromRows, REPORTS_MARK, stateFromRow, supportFromRows } from "../../storage-rows.js";

/** A backend's read: one statement with positional parameters `$1...`, rows as arrays. */
export type SqlRead = (sql: string, values: (string | number)[]) => Promise<unknown[][]>;

/**
 * Per (round, view) of the rounds `list`: report rows held and reports counted at
 * closing (sql-reads.ts's PER_VIEW_SQL for many rounds, with the held rows apart,
 * which are the round's `heldIds`). SQL that DuckDB and PostgreSQL both run.
 */
export const perViewOfRoundsSql = (list: string): string =>
  `SELECT round_no, view, sum(held)::float8, sum(closed)::float8 FROM (
    SELECT round_no, view, count(*) AS held, 0 AS closed FROM calm_reports WHERE round_no IN ${list}
    GROUP BY round_no, view
    UNION ALL SELECT round_no, view, 0, count FROM calm_closed_counts
    WHERE round_no IN ${list} AND cell = ${REPORTS_MARK}
  ) AS t GROUP BY round_no, view`;

/** A round's `[view, held, closed]` rows of perViewOfRoundsSql as `[view, reports]` (held + closed). O(rows). */
const reportsPerView = (rows: readonly unknown[][]): unknown[][] =>
  rows.map(([view, held, closed]) => [view, Number(held) + Number(closed)]);

/** What a backend reads, in one snapshot, for the support counts of the rounds `list` (see {@link sqlRoundReads}). */
export interface SupportRowsOfRounds {
  /** The rows of `perViewOfRoundsSql(list)`: `[round, view, held, closed]`. */
  readonly perView: unknown[][];
  /** The backend's support counts: `[round, view, cell, n]`. */
  readonly cells: unknown[][];
  /** A round's `[view, cell, n]` rows completed by what the backend read beside them (none: as read). */
  readonly complete?: (round: StoredRound, rows: unknown[][]) => unknown[][];
}

/**
 * The batched reads of many rounds (see `RoundReads`) of a backend that runs SQL
 * (DuckDB, PostgreSQL): states one query and statuses three through `read`;
 * support counts from the rows `supportRows(rounds, list)` reads in one snapshot
 * (`list`: the rounds' numbers, `roundList`), assembled per round by
 * `supportFromRows`. O(rows read) here beyond the backend's queries.
 */
export function sqlRoundReads(
  read: SqlRead,
  supportRows: (rounds: readonly StoredRound[], list: string) => Promise<SupportRowsOfRounds>,
): RoundReads {
  return {
    states: (rounds) => sqlRoundStates(read, rounds),
    statuses: (rounds) => sqlRoundStatuses(read, rounds),
    support: async (rounds): Promise<SupportCounts[]> => {
      if (rounds.length === 0) return [];
      const { perView, cells, complete } = await supportRows(rounds, roundList(rounds));
      const views = rowsByRound(perView);
      return perRound(rounds, rowsByRound(cells), (round, support) =>
        supportFromRows(
          round.plan,
          reportsPerView(views.get(round.no) ?? []),
          complete ? complete(round, support) : support,
        ),
      );
    },
  };
}

/** States of many rounds (DuckDB and PostgreSQL): one query; a round without a state row is open. */
export async function sqlRoundStates(read: SqlRead, rounds: readonly StoredRound[]): Promise<RoundState[]> {
  if (rounds.length === 0) return [];
  const rows = await read(
    `SELECT round_no, closed_at, ids_dropped_at FROM calm_round_state WHERE round_no IN ${roundList(rounds)}`,
    [],
  );
  return perRound(rounds, rowsByRound(rows), (_, state) => stateFromRow(state[0]));
}

/**
 * Counters, state and held ids of many rounds (DuckDB and PostgreSQL), equal to
 * `counts`, `roundState` and `heldIds` of each: three queries (reports per
 * (round, view), counters, states), each one `GROUP BY` or lookup over the
 * rounds' rows. O(held report rows of the rounds) in the database.
 */
export async function sqlRoundStatuses(
  read: SqlRead,
  rounds: readonly StoredRound[],
): Promise<RoundStatus[]> {
  if (rounds.length === 0) return [];
  const list = roundList(rounds);
  const [perView, counters, states] = await Promise.all([
    read(perViewOfRoundsSql(list), []),
    read(`SELECT round_no, name, value::float8 FROM calm_counters WHERE round_no IN ${list}`, []),
    sqlRoundStates(read, rounds),
  ]);
  const views = rowsByRound(perView);
  const named = rowsByRound(counters);
  return rounds.map((round, i) => {
    const rows = views.get(round.no) ?? [];
    return {
      counts: countsFromRows(round, reportsPerView(rows), named.get(round.no) ?? []),
      state: states[i]!,
      idsHeld: rows.reduce((sum, row) => sum + Number(row[1]), 0),
    };
  });
}
