import type { DuckDBConnection } from "@duckdb/node-api";
import type { SchemaVersionCheck } from "../api.js";
import {
  lastVersionMarked,
  type MigrationStep,
  migrateSchema,
  type SchemaDb,
  type SchemaHistory,
  type SchemaMigration,
  storedVersion,
} from "./runner.js";

/** The DuckDB layout this code writes (see DUCKDB_STEPS for the earlier ones). */
export const DUCKDB_SCHEMA_VERSION = 6;

const count = async (db: SchemaDb, sql: string) => Number((await db.rows(sql))[0]![0]);
const tableExists = (db: SchemaDb, table: string) =>
  count(db, `SELECT count(*)::DOUBLE FROM duckdb_tables() WHERE table_name = '${table}'`).then((n) => n > 0);

/** Whether `calm_reports` still has the primary key (round_no, report_id) of versions 1 to 3. */
const reportsKeyed = (db: SchemaDb) =>
  count(
    db,
    `SELECT count(*)::DOUBLE FROM duckdb_constraints()
     WHERE table_name = 'calm_reports' AND constraint_type = 'PRIMARY KEY'`,
  ).then((n) => n > 0);

/**
 * The DuckDB file layouts in the order the collector wrote them (git history of
 * storage/duckdb/schema.ts, formerly duckdb-storage.ts): 1 rounds, reports (keyed by round and report id), one
 * support row per cell, counters; 2 + calm_health (probe writes); 3 + round
 * state and closed rounds' counts; 4 reports without the key; 5 + support
 * counts per group commit; 6 + `calm_reports.cell_bits`.
 */
const DUCKDB_STEPS: readonly MigrationStep[] = [
  {
    to: 2,
    what: "calm_health (the probe write of health checks)",
    run: (db) =>
      db.run("CREATE TABLE IF NOT EXISTS calm_health (id INTEGER PRIMARY KEY, checked_at VARCHAR NOT NULL)"),
  },
  {
    to: 3,
    what: "calm_round_state and calm_closed_counts (closing rounds, dropping their ids)",
    run: async (db) => {
      await db.run(`CREATE TABLE IF NOT EXISTS calm_round_state (
        round_no INTEGER PRIMARY KEY, closed_at VARCHAR NOT NULL, ids_dropped_at VARCHAR)`);
      await db.run(`CREATE TABLE IF NOT EXISTS calm_closed_counts (
        round_no INTEGER NOT NULL, view INTEGER NOT NULL, cell INTEGER NOT NULL, count BIGINT NOT NULL,
        PRIMARY KEY (round_no, view, cell))`);
    },
  },
  {
    to: 4,
    what: "calm_reports without its primary key (copied; O(stored reports))",
    run: async (db) => {
      if (!(await reportsKeyed(db))) return;
      // DuckDB cannot drop a key in place: copy the table.
      await db.run("CREATE TABLE calm_reports_unkeyed AS SELECT round_no, report_id, view FROM calm_reports");
      await db.run("DROP TABLE calm_reports");
      await db.run("ALTER TABLE calm_reports_unkeyed RENAME TO calm_reports");
    },
  },
  {
    to: 5,
    what: "calm_support_counts (support counted per group commit)",
    run: (db) =>
      db.run(`CREATE TABLE IF NOT EXISTS calm_support_counts (
        round_no INTEGER NOT NULL, view INTEGER NOT NULL, cell INTEGER NOT NULL, count INTEGER NOT NULL)`),
  },
  {
    to: 6,
    what: "calm_reports.cell_bits (a report's cells as bits in its row; NULL in older rows)",
    run: (db) => db.run("ALTER TABLE calm_reports ADD COLUMN IF NOT EXISTS cell_bits BIGINT"),
  },
];

/** The DuckDB schema history, `create` being the current layout (storage/duckdb/schema.ts's SCHEMA). */
function duckDbHistory(create: readonly string[]): SchemaHistory {
  return {
    backend: "duckdb",
    current: DUCKDB_SCHEMA_VERSION,
    create,
    steps: DUCKDB_STEPS,
    inferVersion: async (db) =>
      lastVersionMarked([
        await tableExists(db, "calm_rounds"),
        await tableExists(db, "calm_health"),
        await tableExists(db, "calm_round_state"),
        !(await reportsKeyed(db)),
        await tableExists(db, "calm_support_counts"),
        (await count(
          db,
          "SELECT count(*)::DOUBLE FROM duckdb_columns() WHERE table_name = 'calm_reports' AND column_name = 'cell_bits'",
        )) > 0,
      ]),
  };
}

/** `connection` as a `SchemaDb`, each step in its own transaction. */
function schemaDb(connection: DuckDBConnection): SchemaDb {
  return {
    run: async (sql) => {
      await connection.run(sql);
    },
    rows: async (sql) => (await connection.runAndReadAll(sql)).getRows() as unknown[][],
    atomically: async (body) => {
      await connection.run("BEGIN TRANSACTION");
      try {
        await body();
        await connection.run("COMMIT");
      } catch (error) {
        await connection.run("ROLLBACK").catch(() => undefined);
        throw error;
      }
    },
  };
}

/**
 * Migrate the file open on `connection` to DUCKDB_SCHEMA_VERSION, one
 * transaction per step (see `migrateSchema`); `create` is the current layout for
 * an empty file. Throws `SchemaVersionError` for a file of a newer collector.
 */
export async function migrateDuckDb(
  connection: DuckDBConnection,
  create: readonly string[],
): Promise<SchemaMigration> {
  const db = schemaDb(connection);
  return migrateSchema(db, duckDbHistory(create), await tableExists(db, "calm_schema_version"));
}

/** The version stored in the file (read on `connection`) against DUCKDB_SCHEMA_VERSION. */
export async function duckDbSchemaVersion(
  read: (sql: string) => Promise<unknown[][]>,
): Promise<SchemaVersionCheck> {
  const found = await storedVersion({ run: async () => undefined, rows: read }, true);
  return { found: found ?? 0, expected: DUCKDB_SCHEMA_VERSION };
}
