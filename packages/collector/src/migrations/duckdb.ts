import type { DuckDBConnection } from "@duckdb/node-api";
import type { SchemaVersionCheck } from "../api.js";
import type { MarkedStep, SchemaDb, SchemaMigration } from "./runner.js";
import { migrateBackend, roundClosingStep, storedVersion } from "./runner.js";

/** The DuckDB layout this code writes (see DUCKDB_STEPS for the earlier ones). */
export const DUCKDB_SCHEMA_VERSION = 6;

const count = async (db: Pick<SchemaDb, "rows">, sql: string) => Number((await db.rows(sql))[0]![0]);

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
const DUCKDB_STEPS: readonly MarkedStep[] = [
  {
    to: 2,
    what: "calm_health (the probe write of health checks)",
    mark: (db) => db.tableExists("calm_health"),
    run: (db) =>
      db.run("CREATE TABLE IF NOT EXISTS calm_health (id INTEGER PRIMARY KEY, checked_at VARCHAR NOT NULL)"),
  },
  roundClosingStep(3, "VARCHAR"),
  {
    to: 4,
    what: "calm_reports without its primary key (copied; O(stored reports))",
    mark: async (db) => !(await reportsKeyed(db)),
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
    mark: (db) => db.tableExists("calm_support_counts"),
    run: (db) =>
      db.run(`CREATE TABLE IF NOT EXISTS calm_support_counts (
        round_no INTEGER NOT NULL, view INTEGER NOT NULL, cell INTEGER NOT NULL, count INTEGER NOT NULL)`),
  },
  {
    to: 6,
    what: "calm_reports.cell_bits (a report's cells as bits in its row; NULL in older rows)",
    mark: async (db) =>
      (await count(
        db,
        "SELECT count(*)::DOUBLE FROM duckdb_columns() WHERE table_name = 'calm_reports' AND column_name = 'cell_bits'",
      )) > 0,
    run: (db) => db.run("ALTER TABLE calm_reports ADD COLUMN IF NOT EXISTS cell_bits BIGINT"),
  },
];

/** `connection` as a `SchemaDb`, each step in its own transaction. */
function schemaDb(connection: DuckDBConnection): SchemaDb {
  const rows = async (sql: string) => (await connection.runAndReadAll(sql)).getRows() as unknown[][];
  return {
    run: async (sql) => {
      await connection.run(sql);
    },
    rows,
    tableExists: async (table) =>
      (await count({ rows }, `SELECT count(*)::DOUBLE FROM duckdb_tables() WHERE table_name = '${table}'`)) >
      0,
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
  return migrateBackend(schemaDb(connection), "duckdb", DUCKDB_SCHEMA_VERSION, DUCKDB_STEPS, create);
}

/** The version stored in the file (read on `connection`) against DUCKDB_SCHEMA_VERSION. */
export async function duckDbSchemaVersion(
  read: (sql: string) => Promise<unknown[][]>,
): Promise<SchemaVersionCheck> {
  const found = await storedVersion({ rows: read }, true);
  return { found: found ?? 0, expected: DUCKDB_SCHEMA_VERSION };
}
