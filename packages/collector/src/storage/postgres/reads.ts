import type { SchemaVersionCheck, StoredRound, SupportCounts } from "../../api.js";
import { POSTGRES_READY_SQL, postgresVersionCheck } from "../../migrations/postgres.js";
import { REPORTS_MARK, supportFromRows } from "../../storage-rows.js";
import { PER_VIEW_SQL } from "../shared/sql.js";
import type { PostgresDb } from "./connection.js";
import { cellLayout } from "./layout.js";

/**
 * Support counts per (view, cell) of a round (`$1`): stored rows, per-view
 * counts, deltas not folded yet (`$2, $3`: the view and cell of each flat cell)
 * and dropped rows' counts.
 */
const SUPPORT_SQL = `SELECT view, cell, sum(n)::float8 FROM (
    SELECT view, cell, count(*) AS n FROM calm_support WHERE round_no = $1 GROUP BY view, cell
    UNION ALL SELECT view, (u.i - 1)::int, u.n FROM calm_support_views, unnest(counts) WITH ORDINALITY AS u(n, i)
      WHERE round_no = $1
    UNION ALL SELECT m.view, m.cell, d.n FROM (
        SELECT u.i, sum(u.n) AS n FROM calm_support_deltas, unnest(counts) WITH ORDINALITY AS u(n, i)
        WHERE round_no = $1 GROUP BY u.i) AS d
      JOIN unnest($2::int[], $3::int[]) WITH ORDINALITY AS m(view, cell, i) ON m.i = d.i
    UNION ALL SELECT view, cell, count FROM calm_closed_counts WHERE round_no = $1 AND cell <> ${REPORTS_MARK}
  ) AS t GROUP BY view, cell`;

/**
 * A round's reports per view and support counts per (view, cell), in one
 * snapshot for both aggregates, so they agree under concurrent writes.
 */
export async function supportCounts(db: PostgresDb, round: StoredRound): Promise<SupportCounts> {
  const layout = cellLayout(round.plan);
  const [reports, support] = await db.snapshot(async (client) => [
    (await client.query({ text: PER_VIEW_SQL, values: [round.no], rowMode: "array" })).rows,
    (
      await client.query({
        text: SUPPORT_SQL,
        values: [round.no, layout.viewOf, layout.cellOf],
        rowMode: "array",
      })
    ).rows,
  ]);
  return supportFromRows(round.plan, reports!, support!);
}

/** Readiness: one write (the version row's `checked_at`) that reads the schema version back. */
export async function readyCheck(db: PostgresDb): Promise<SchemaVersionCheck> {
  return postgresVersionCheck(await db.read(POSTGRES_READY_SQL, [new Date().toISOString()]));
}
