import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { migrateDuckDb } from "../../migrations/duckdb.js";
import type { SchemaMigration } from "../../migrations/runner.js";

/** The current layout, created in an empty file (earlier layouts migrate: migrations/duckdb.ts). */
const SCHEMA = [
  "CREATE SEQUENCE IF NOT EXISTS calm_round_no",
  `CREATE TABLE IF NOT EXISTS calm_rounds (
     round_no INTEGER PRIMARY KEY, round_id UUID NOT NULL UNIQUE, created_at VARCHAR NOT NULL,
     plan VARCHAR NOT NULL, request VARCHAR NOT NULL)`,
  // No primary key on (round_no, report_id): the single owning process de-duplicates
  // against its in-memory id set (see openDuckDbStorage); an index would cost ~7 us/report.
  // cell_bits: the report's supported cells as bits (see BITS_MAX_CELLS); added to older files at open.
  `CREATE TABLE IF NOT EXISTS calm_reports (
     round_no INTEGER NOT NULL, report_id UUID NOT NULL, view INTEGER NOT NULL, cell_bits BIGINT)`,
  // One row per supported cell of a report: written by earlier versions, still read and compacted.
  "CREATE TABLE IF NOT EXISTS calm_support (round_no INTEGER NOT NULL, view INTEGER NOT NULL, cell INTEGER NOT NULL)",
  // Support counts of one group commit: one row per (round, view, cell) its reports support
  // (views of more than BITS_MAX_CELLS cells; all views in files of earlier versions).
  `CREATE TABLE IF NOT EXISTS calm_support_counts (
     round_no INTEGER NOT NULL, view INTEGER NOT NULL, cell INTEGER NOT NULL, count INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS calm_counters (
     round_no INTEGER NOT NULL, name VARCHAR NOT NULL, value BIGINT NOT NULL, PRIMARY KEY (round_no, name))`,
  // One row: the last time a health check after a failed write proved that commits work again.
  "CREATE TABLE IF NOT EXISTS calm_health (id INTEGER PRIMARY KEY, checked_at VARCHAR NOT NULL)",
  `CREATE TABLE IF NOT EXISTS calm_round_state (
     round_no INTEGER PRIMARY KEY, closed_at VARCHAR NOT NULL, ids_dropped_at VARCHAR)`,
  `CREATE TABLE IF NOT EXISTS calm_closed_counts (
     round_no INTEGER NOT NULL, view INTEGER NOT NULL, cell INTEGER NOT NULL, count BIGINT NOT NULL,
     PRIMARY KEY (round_no, view, cell))`,
];

/**
 * Create or migrate the file's schema on the `writer` connection. On failure
 * both connections and the instance are closed and the error rejects as it is
 * (`SchemaVersionError` for a file of a newer collector).
 */
export async function prepareSchema(
  instance: DuckDBInstance,
  writer: DuckDBConnection,
  reader: DuckDBConnection,
): Promise<SchemaMigration> {
  try {
    return await migrateDuckDb(writer, SCHEMA);
  } catch (error) {
    writer.closeSync();
    reader.closeSync();
    instance.closeSync();
    throw error;
  }
}
