import type { RoundState, RoundStatus, StoredRound } from "../../api.js";
import { perRound, roundList, rowsByRound } from "../../round-reads.js";
import { countsFromRows, REPORTS_MARK, stateFromRow } from "../../storage-rows.js";

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
      counts: countsFromRows(
        round,
        rows.map(([view, held, closed]) => [view, Number(held) + Number(closed)]),
        named.get(round.no) ?? [],
      ),
      state: states[i]!,
      idsHeld: rows.reduce((sum, row) => sum + Number(row[1]), 0),
    };
  });
}
