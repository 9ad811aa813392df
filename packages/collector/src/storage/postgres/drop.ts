import type pg from "pg";
import { StorageError } from "../../errors.js";
import { planFromColumn, REPORTS_MARK } from "../../storage-rows.js";
import type { PostgresDb } from "./connection.js";
import { foldDeltas } from "./fold.js";

/** Session advisory lock key: one collector at a time rebuilds the indexes after a drop. */
const REINDEX_LOCK = 0x63616c6e;
/** The indexes a drop of closed rounds' rows empties (their pages stay until rebuilt). */
const DROPPED_INDEXES = ["calm_reports_pkey", "calm_support_round", "calm_support_views_pkey"];

/**
 * Move a round's rows into its closed counts (`$1` the round): each statement
 * deletes rows and adds exactly the deleted ones to the counts, so a batch that
 * commits meanwhile stays counted once (as rows, until the next sweep); the last
 * one deletes its dropped reports' ids.
 */
const COMPACT_SQL = [
  `WITH gone AS (DELETE FROM calm_reports WHERE round_no = $1 RETURNING view)
   INSERT INTO calm_closed_counts SELECT $1, view, ${REPORTS_MARK}, count(*) FROM gone GROUP BY view
   ON CONFLICT (round_no, view, cell) DO UPDATE SET count = calm_closed_counts.count + excluded.count`,
  `WITH gone AS (DELETE FROM calm_support WHERE round_no = $1 RETURNING view, cell)
   INSERT INTO calm_closed_counts SELECT $1, view, cell, count(*) FROM gone GROUP BY view, cell
   ON CONFLICT (round_no, view, cell) DO UPDATE SET count = calm_closed_counts.count + excluded.count`,
  `WITH gone AS (DELETE FROM calm_support_views WHERE round_no = $1 RETURNING view, counts)
   INSERT INTO calm_closed_counts
   SELECT $1, view, (u.i - 1)::int, sum(u.n) FROM gone, unnest(gone.counts) WITH ORDINALITY AS u(n, i)
   GROUP BY view, u.i HAVING sum(u.n) <> 0
   ON CONFLICT (round_no, view, cell) DO UPDATE SET count = calm_closed_counts.count + excluded.count`,
  // Dropped reports' ids go too (their counters stay).
  "DELETE FROM calm_dropped_reports WHERE round_no = $1",
];

/**
 * Dropping closed rounds' report ids: each due round's rows (reports, support,
 * per-view counts after folding its deltas) become its closed counts, one
 * transaction per round, then the emptied indexes are rebuilt.
 */
export class IdDropper {
  /** Rows were dropped and the indexes are not rebuilt yet (a failed rebuild is retried at the next sweep). */
  #reindexDue = false;

  /** `slot`: this instance's row of each view's support counts (the deltas of a due round are folded into it). */
  constructor(
    readonly db: PostgresDb,
    readonly slot: number,
  ) {}

  /** Drop the ids of the rounds closed at or before `closedBefore`, marked dropped at `at`; their round ids. */
  async dropClosedIds(closedBefore: Date, at: Date): Promise<string[]> {
    // Rounds closed long enough that still hold rows (a batch in flight at closing, or a fold
    // of its deltas, may add some later).
    const due = await this.db.read(
      `SELECT s.round_no, r.round_id::text, r.plan FROM calm_round_state s JOIN calm_rounds r USING (round_no)
       WHERE s.closed_at <= $1
         AND (s.ids_dropped_at IS NULL OR EXISTS (SELECT 1 FROM calm_reports c WHERE c.round_no = s.round_no)
           OR EXISTS (SELECT 1 FROM calm_dropped_reports x WHERE x.round_no = s.round_no)
           OR EXISTS (SELECT 1 FROM calm_support_deltas d WHERE d.round_no = s.round_no)
           OR EXISTS (SELECT 1 FROM calm_support_views v WHERE v.round_no = s.round_no))
       ORDER BY s.round_no`,
      [closedBefore.toISOString()],
    );
    for (const [no, , plan] of due) {
      const roundPlan = planFromColumn(plan);
      await this.db.write(async (client) => {
        // The deltas into the per-view counts first, which the next statements move to the closed counts.
        await foldDeltas(client, Number(no), roundPlan, this.slot);
        for (const statement of COMPACT_SQL) await client.query(statement, [no]);
        await client.query(
          "UPDATE calm_round_state SET ids_dropped_at = coalesce(ids_dropped_at, $2) WHERE round_no = $1",
          [no, at.toISOString()],
        );
      });
      this.#reindexDue = true;
    }
    if (this.#reindexDue) await this.#reindex();
    return due.map((row) => String(row[1]));
  }

  /**
   * After a drop: `REINDEX INDEX CONCURRENTLY` of the report key and the support
   * index, whose pages a `DELETE` (and `VACUUM`) leaves at their size (measured:
   * 10^6 reports dropped, 80.9 MB left after `VACUUM`, see the README). Writes go on
   * meanwhile (it takes no lock that blocks `INSERT`); the cost is a rebuild over
   * the rows still stored, O(n log n) for the n reports of the open rounds, and the
   * old and new index side by side until it ends. One collector at a time (session
   * advisory lock; another one skips it); leftovers of a rebuild cut short (invalid
   * `..._ccnew` indexes, which writes would keep updating) are dropped first.
   */
  async #reindex(): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.db.pool.connect();
    } catch (error) {
      throw new StorageError(
        `PostgreSQL: rebuilding the indexes after a drop failed: ${(error as Error).message}`,
      );
    }
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken = error;
    };
    client.on("error", onError);
    try {
      const locked = await client.query({
        text: "SELECT pg_try_advisory_lock($1)",
        values: [REINDEX_LOCK],
        rowMode: "array",
      });
      if (locked.rows[0]![0] !== true) {
        this.#reindexDue = false; // another collector is rebuilding them now
        return;
      }
      try {
        await rebuildIndexes(client);
        this.#reindexDue = false;
      } finally {
        await client.query({ text: "SELECT pg_advisory_unlock($1)", values: [REINDEX_LOCK] });
      }
    } catch (error) {
      throw new StorageError(
        `PostgreSQL: rebuilding the indexes after a drop failed: ${(error as Error).message}`,
      );
    } finally {
      client.removeListener("error", onError);
      client.release(broken);
    }
  }
}

/** Drop the leftovers of a rebuild cut short, then rebuild {@link DROPPED_INDEXES} concurrently. */
async function rebuildIndexes(client: pg.PoolClient): Promise<void> {
  const leftovers = await client.query({
    text: `SELECT i.indexrelid::regclass::text FROM pg_index i
                 WHERE NOT i.indisvalid
                   AND i.indrelid IN ('calm_reports'::regclass, 'calm_support'::regclass, 'calm_support_views'::regclass)`,
    rowMode: "array",
  });
  for (const [name] of leftovers.rows) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
  for (const index of DROPPED_INDEXES) await client.query(`REINDEX INDEX CONCURRENTLY ${index}`);
}
