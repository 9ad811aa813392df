import type pg from "pg";
import { StorageError } from "../../errors.js";
import { DROPPED_REPORTS_TABLE, migratePostgres } from "../../migrations/postgres.js";
import { type SchemaMigration, SchemaVersionError } from "../../migrations/runner.js";
import { transaction } from "./connection.js";

/** Any constant: the advisory lock that serialises schema creation between processes. */
const MIGRATION_LOCK = 0x63616c6d;

/** The current layout, created in an empty database (earlier layouts migrate: migrations/postgres.ts). */
const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS calm_rounds (
     round_no INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY, round_id UUID NOT NULL UNIQUE,
     created_at TEXT NOT NULL, plan TEXT NOT NULL, request TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS calm_reports (
     round_no INTEGER NOT NULL, report_id UUID NOT NULL, view INTEGER NOT NULL,
     PRIMARY KEY (round_no, report_id))`,
  "CREATE TABLE IF NOT EXISTS calm_support (round_no INTEGER NOT NULL, view INTEGER NOT NULL, cell INTEGER NOT NULL)",
  "CREATE INDEX IF NOT EXISTS calm_support_round ON calm_support (round_no)",
  // Support counts: one row per (round, view, slot): the counts of the view's cells, which each fold
  // of deltas adds to (a slot per storage instance, so collector processes do not wait on one row).
  `CREATE TABLE IF NOT EXISTS calm_support_views (
     round_no INTEGER NOT NULL, view INTEGER NOT NULL, slot INTEGER NOT NULL, counts BIGINT[] NOT NULL,
     PRIMARY KEY (round_no, view, slot))`,
  // Support deltas: one row per (group commit, round): the counts its reports add to each cell of
  // the plan (the views' cells in plan order), folded into calm_support_views every few groups.
  "CREATE TABLE IF NOT EXISTS calm_support_deltas (round_no INTEGER NOT NULL, counts INTEGER[] NOT NULL)",
  // A fold deletes a round's deltas; until autovacuum runs, the deleted rows stay in the table's
  // pages, so without this index every fold read every page (a minute of deltas at 200,000 reports/s is
  // ~150 MB). One index entry per group commit.
  "CREATE INDEX IF NOT EXISTS calm_support_deltas_round ON calm_support_deltas (round_no)",
  // A delta row lives until the next fold: below 8,160 bytes (2,000 cells) PostgreSQL keeps it as it
  // is instead of compressing it (pglz took ~9% of the server's CPU with 1,120 cells at the 2 kB default).
  `DO $$ BEGIN
     IF NOT EXISTS (SELECT 1 FROM pg_class WHERE oid = 'calm_support_deltas'::regclass
                    AND reloptions @> ARRAY['toast_tuple_target=8160']) THEN
       ALTER TABLE calm_support_deltas SET (toast_tuple_target = 8160);
     END IF;
   END $$`,
  `CREATE TABLE IF NOT EXISTS calm_counters (
     round_no INTEGER NOT NULL, name TEXT NOT NULL, value BIGINT NOT NULL, PRIMARY KEY (round_no, name))`,
  // Ids of reports acknowledged but not stored (the unary check dropped them), so a re-sent one is not
  // counted again; dropped with the round's report ids.
  DROPPED_REPORTS_TABLE,
  `CREATE TABLE IF NOT EXISTS calm_round_state (
     round_no INTEGER PRIMARY KEY, closed_at TEXT NOT NULL, ids_dropped_at TEXT)`,
  `CREATE TABLE IF NOT EXISTS calm_closed_counts (
     round_no INTEGER NOT NULL, view INTEGER NOT NULL, cell INTEGER NOT NULL, count BIGINT NOT NULL,
     PRIMARY KEY (round_no, view, cell))`,
];

/**
 * Create or migrate the schema, once between processes (a transaction holding
 * the migration advisory lock). On failure the pool is ended and the call
 * rejects: `SchemaVersionError` as it is (a database of a newer collector),
 * anything else as a `StorageError`.
 */
export async function prepareSchema(pool: pg.Pool): Promise<SchemaMigration> {
  try {
    return await transaction(pool, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
      return migratePostgres(client, SCHEMA);
    });
  } catch (error) {
    await pool.end().catch(() => undefined);
    if (error instanceof SchemaVersionError) throw error;
    throw new StorageError(`openPostgresStorage: cannot prepare the database: ${(error as Error).message}`);
  }
}
