import type pg from "pg";
import type { RoundState, StoredRound } from "../../api.js";
import { roundFromRow, stateFromRow } from "../../storage-rows.js";
import { ADD_COUNTER_SQL, ROUND_STATE_SQL } from "../shared/sql.js";
import type { PostgresDb } from "./connection.js";

/**
 * Store a round, one transaction. A round whose id is stored already (another
 * collector opened the same campaign round, see campaigns.ts) is not stored
 * again: the stored one is the round (waits for a racing insert to commit, then reads it).
 */
export function createRound(db: PostgresDb, round: Omit<StoredRound, "no">): Promise<StoredRound> {
  return db.write(async (client) => {
    const result = await client.query(
      `INSERT INTO calm_rounds (round_id, created_at, plan, request) VALUES ($1, $2, $3, $4)
         ON CONFLICT (round_id) DO NOTHING RETURNING round_no`,
      [round.id, round.createdAt, JSON.stringify(round.plan), JSON.stringify(round.request)],
    );
    if (result.rows.length > 0) return { ...round, no: Number(result.rows[0].round_no) };
    const stored = await client.query({
      text: "SELECT round_no, round_id::text, created_at, plan, request FROM calm_rounds WHERE round_id = $1",
      values: [round.id],
      rowMode: "array",
    });
    return roundFromRow(stored.rows[0]);
  });
}

/**
 * Close a round at `at` (the first close wins; a later one reads its state),
 * one transaction.
 */
export function closeRound(db: PostgresDb, round: StoredRound, at: Date): Promise<RoundState> {
  return db.write(async (client) => {
    const result = await client.query({
      text: `WITH ins AS (INSERT INTO calm_round_state VALUES ($1, $2, NULL) ON CONFLICT (round_no) DO NOTHING
                 RETURNING closed_at, ids_dropped_at)
               SELECT closed_at, ids_dropped_at FROM ins
               UNION ALL SELECT closed_at, ids_dropped_at FROM calm_round_state WHERE round_no = $1`,
      values: [round.no, at.toISOString()],
      rowMode: "array",
    });
    if (result.rows.length > 0) return stateFromRow(result.rows[0]);
    // Another transaction closed it meanwhile (after this statement's snapshot): read its row.
    const again = await client.query({ text: ROUND_STATE_SQL, values: [round.no], rowMode: "array" });
    return stateFromRow(again.rows[0]);
  });
}

/** Add `amount` to counter `name` of round `round`, inside the caller's transaction. */
export async function addCounter(
  client: pg.PoolClient,
  round: number,
  name: string,
  amount: number,
): Promise<void> {
  await client.query(ADD_COUNTER_SQL, [round, name, amount]);
}
