import type pg from "pg";
import type { SchemaVersionCheck } from "../api.js";
import type { MarkedStep, SchemaDb, SchemaMigration } from "./runner.js";
import { migrateBackend, roundClosingStep } from "./runner.js";

/** The PostgreSQL layout this code writes (see POSTGRES_STEPS for the earlier ones). */
export const POSTGRES_SCHEMA_VERSION = 8;

/**
 * The slot of support counts carried over from version 3's per-cell table
 * (live slots are random integers >= 0, see storage/postgres/index.ts).
 */
export const MIGRATED_SLOT = -1;

/** Version 8's table: the ids of dropped reports (counted once each; storage/postgres/drops.ts). */
export const DROPPED_REPORTS_TABLE = `CREATE TABLE IF NOT EXISTS calm_dropped_reports (
     round_no INTEGER NOT NULL, report_id UUID NOT NULL, view INTEGER NOT NULL, reason TEXT NOT NULL,
     PRIMARY KEY (round_no, report_id))`;

const exists = async (db: Pick<SchemaDb, "rows">, sql: string) => Number((await db.rows(sql))[0]![0]) > 0;
const indexExists = (db: SchemaDb, index: string) =>
  exists(
    db,
    `SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() AND indexname = '${index}'`,
  );
const TOAST_TARGET = `SELECT count(*) FROM pg_class WHERE oid = to_regclass('calm_support_deltas')
  AND reloptions @> ARRAY['toast_tuple_target=8160']`;

/**
 * The PostgreSQL layouts in the order the collector wrote them (git history of
 * storage/postgres/schema.ts, formerly postgres-storage.ts): 1 rounds, reports (keyed), one support row per cell,
 * counters; 2 + round state and closed rounds' counts; 3 + support counts per
 * (round, view, cell); 4 those replaced by per-view count arrays per writer slot;
 * 5 + support deltas per group commit; 6 deltas stored uncompressed; 7 + an index
 * on the deltas' round; 8 + the ids of dropped reports.
 */
const POSTGRES_STEPS: readonly MarkedStep[] = [
  roundClosingStep(2, "TEXT"),
  {
    to: 3,
    what: "calm_support_counts (support counts per round, view and cell)",
    // Version 4 replaced the counts by the views.
    mark: async (db) =>
      (await db.tableExists("calm_support_counts")) || (await db.tableExists("calm_support_views")),
    run: (db) =>
      db.run(`CREATE TABLE IF NOT EXISTS calm_support_counts (
        round_no INTEGER NOT NULL, view INTEGER NOT NULL, cell INTEGER NOT NULL, count BIGINT NOT NULL,
        PRIMARY KEY (round_no, view, cell))`),
  },
  {
    to: 4,
    what: `calm_support_views (per-view count arrays); calm_support_counts moved into slot ${MIGRATED_SLOT} and dropped`,
    mark: (db) => db.tableExists("calm_support_views"),
    run: async (db) => {
      await db.run(`CREATE TABLE IF NOT EXISTS calm_support_views (
        round_no INTEGER NOT NULL, view INTEGER NOT NULL, slot INTEGER NOT NULL, counts BIGINT[] NOT NULL,
        PRIMARY KEY (round_no, view, slot))`);
      if (!(await db.tableExists("calm_support_counts"))) return;
      // One array per (round, view): cells 0..the highest counted one, 0 where none was.
      await db.run(`INSERT INTO calm_support_views (round_no, view, slot, counts)
        SELECT v.round_no, v.view, ${MIGRATED_SLOT}, array_agg(coalesce(c.count, 0) ORDER BY g.cell)
        FROM (SELECT round_no, view, max(cell) AS top FROM calm_support_counts GROUP BY round_no, view) AS v
        CROSS JOIN LATERAL generate_series(0, v.top) AS g(cell)
        LEFT JOIN calm_support_counts AS c ON c.round_no = v.round_no AND c.view = v.view AND c.cell = g.cell
        GROUP BY v.round_no, v.view
        ON CONFLICT (round_no, view, slot) DO NOTHING`);
      await db.run("DROP TABLE calm_support_counts");
    },
  },
  {
    to: 5,
    what: "calm_support_deltas (support per group commit, folded into the views)",
    mark: (db) => db.tableExists("calm_support_deltas"),
    run: (db) =>
      db.run(
        "CREATE TABLE IF NOT EXISTS calm_support_deltas (round_no INTEGER NOT NULL, counts INTEGER[] NOT NULL)",
      ),
  },
  {
    to: 6,
    what: "calm_support_deltas stored uncompressed (toast_tuple_target = 8160)",
    mark: (db) => exists(db, TOAST_TARGET),
    run: (db) => db.run("ALTER TABLE calm_support_deltas SET (toast_tuple_target = 8160)"),
  },
  {
    to: 7,
    what: "index calm_support_deltas_round",
    mark: (db) => indexExists(db, "calm_support_deltas_round"),
    run: (db) =>
      db.run("CREATE INDEX IF NOT EXISTS calm_support_deltas_round ON calm_support_deltas (round_no)"),
  },
  {
    to: 8,
    what: "calm_dropped_reports (ids of reports the unary check dropped, counted once each)",
    mark: (db) => db.tableExists("calm_dropped_reports"),
    run: (db) => db.run(DROPPED_REPORTS_TABLE),
  },
];

/**
 * Migrate the database to POSTGRES_SCHEMA_VERSION on `client`, inside the
 * caller's transaction (which holds the migration advisory lock, so collectors
 * starting together migrate once). `create`: the current layout for an empty
 * database. Throws `SchemaVersionError` for a database of a newer collector.
 */
export async function migratePostgres(
  client: pg.ClientBase,
  create: readonly string[],
): Promise<SchemaMigration> {
  const rows = async (sql: string) =>
    (await client.query({ text: sql, rowMode: "array" })).rows as unknown[][];
  const db: SchemaDb = {
    run: async (sql) => {
      await client.query(sql);
    },
    rows,
    tableExists: (table) =>
      exists(
        { rows },
        `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = '${table}'`,
      ),
  };
  return migrateBackend(db, "postgres", POSTGRES_SCHEMA_VERSION, POSTGRES_STEPS, create);
}

/**
 * Readiness: a write (`checked_at` of the version row) that also reads the
 * stored version; fails on a read-only or unreachable server.
 */
export const POSTGRES_READY_SQL =
  "UPDATE calm_schema_version SET checked_at = $1 WHERE id = 1 RETURNING version::float8";

/** The answer of POSTGRES_READY_SQL as a version check. */
export function postgresVersionCheck(rows: readonly unknown[][]): SchemaVersionCheck {
  return { found: rows.length === 0 ? 0 : Number(rows[0]![0]), expected: POSTGRES_SCHEMA_VERSION };
}
