import { REPORTS_MARK } from "../../storage-rows.js";

// Statements the DuckDB and PostgreSQL backends both run on the same tables
// (`float8`, `text` and `UUID` name the same types in both).

/**
 * Reports per view of a round (`$1`): its stored rows plus the counts of rows
 * dropped at closing.
 */
export const PER_VIEW_SQL = `SELECT view, sum(n)::float8 FROM (
    SELECT view, count(*) AS n FROM calm_reports WHERE round_no = $1 GROUP BY view
    UNION ALL SELECT view, count FROM calm_closed_counts WHERE round_no = $1 AND cell = ${REPORTS_MARK}
  ) AS t GROUP BY view`;

/** The columns `roundFromRow` reads, in its order. */
export const ROUND_COLUMNS = "round_no, round_id::text, created_at, plan, request";

/** A round's (`$1`) state row, as `stateFromRow` reads it. One key lookup. */
export const ROUND_STATE_SQL = "SELECT closed_at, ids_dropped_at FROM calm_round_state WHERE round_no = $1";

/** Add `$3` to counter `$2` of round `$1` (creating it at `$3`). One key lookup. */
export const ADD_COUNTER_SQL = `INSERT INTO calm_counters VALUES ($1, $2, $3) ON CONFLICT (round_no, name)
     DO UPDATE SET value = calm_counters.value + excluded.value`;
