import type { DuckDBConnection } from "@duckdb/node-api";
import type { RoundState, StoredRound } from "../../api.js";
import { planFromColumn, stateFromRow } from "../../storage-rows.js";
import { ADD_COUNTER_SQL, ROUND_STATE_SQL } from "../shared/sql.js";
import { compactSql } from "./support-sql.js";

// The round lifecycle's writes, each run on the writer connection inside a group's open
// transaction (see ingest.ts): they commit or roll back with the group.

/** Store a round under the next round number. One statement. */
export async function insertRound(
  writer: DuckDBConnection,
  round: Omit<StoredRound, "no">,
): Promise<StoredRound> {
  const rows = await writer.runAndReadAll(
    "INSERT INTO calm_rounds VALUES (nextval('calm_round_no'), $1::UUID, $2, $3, $4) RETURNING round_no",
    [round.id, round.createdAt, JSON.stringify(round.plan), JSON.stringify(round.request)],
  );
  return { ...round, no: rows.getRows()[0]![0] as number };
}

/** Close round `no` at `at` (a round closed before keeps its state); its state. Two statements. */
export async function closeRoundRow(writer: DuckDBConnection, no: number, at: string): Promise<RoundState> {
  await writer.run("INSERT INTO calm_round_state VALUES ($1, $2, NULL) ON CONFLICT (round_no) DO NOTHING", [
    no,
    at,
  ]);
  const rows = await writer.runAndReadAll(ROUND_STATE_SQL, [no]);
  return stateFromRow(rows.getRows()[0]);
}

/**
 * Drop the held rows of the rounds closed at or before `closedBefore` whose ids
 * are not dropped yet: each one's rows become its closed counts
 * ({@link compactSql}) and it is marked dropped at `at`. The caller has flushed
 * the group's staged rows first. Returns the rounds' ids and numbers.
 * O(held rows of those rounds).
 */
export async function dropDueRounds(
  writer: DuckDBConnection,
  closedBefore: string,
  at: string,
): Promise<{ ids: string[]; compacted: number[] }> {
  const due = await writer.runAndReadAll(
    `SELECT s.round_no, r.round_id::VARCHAR, r.plan FROM calm_round_state s JOIN calm_rounds r USING (round_no)
             WHERE s.closed_at <= $1 AND s.ids_dropped_at IS NULL ORDER BY s.round_no`,
    [closedBefore],
  );
  const compacted: number[] = [];
  for (const [no, , plan] of due.getRows()) {
    const statements = compactSql(planFromColumn(plan));
    for (const statement of statements) await writer.run(statement, [no as number]);
    await writer.run("UPDATE calm_round_state SET ids_dropped_at = $2 WHERE round_no = $1", [
      no as number,
      at,
    ]);
    compacted.push(no as number);
  }
  return { ids: due.getRows().map((row) => String(row[1])), compacted };
}

/** The health probe's one-row write (`calm_health`). */
export async function writeProbe(writer: DuckDBConnection): Promise<void> {
  await writer.run("INSERT OR REPLACE INTO calm_health VALUES (1, $1)", [new Date().toISOString()]);
}

/** Add each counter's amount to its row, one statement per counter. */
export async function writeCounters(
  writer: DuckDBConnection,
  counters: Iterable<{ round: number; name: string; amount: number }>,
): Promise<void> {
  for (const { round, name, amount } of counters) await writer.run(ADD_COUNTER_SQL, [round, name, amount]);
}
