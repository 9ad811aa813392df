import { CannotRunError } from "@calm-ldp/errors";

/**
 * A database's schema as a migration sees it: run a statement, read rows (as
 * arrays), and optionally run a step with its version stamp atomically (DuckDB:
 * one transaction per step; PostgreSQL: the caller's transaction holds all). A
 * failed step leaves the previous layout and version.
 */
export interface SchemaDb {
  run(sql: string): Promise<void>;
  rows(sql: string): Promise<unknown[][]>;
  /** Whether the table is in the database's catalog (current schema). */
  tableExists(table: string): Promise<boolean>;
  atomically?(body: () => Promise<void>): Promise<void>;
}

/** One migration step: from version `to - 1` to version `to`. Idempotent. */
export interface MigrationStep {
  readonly to: number;
  /** What the step changes, for the migrate command's output. */
  readonly what: string;
  run(db: SchemaDb): Promise<void>;
}

/** A step that also tells whether a database already has its change (its version's mark). */
export interface MarkedStep extends MigrationStep {
  mark(db: SchemaDb): Promise<boolean>;
}

/**
 * A backend's schema history. Versions 1..current are the layouts the collector
 * wrote in turn (version 1: the first); `steps[i]` takes version i + 1 to
 * i + 2. Databases written before versions were stored carry none: their version
 * is read from their tables (`inferVersion`, the last version all of whose
 * marks are present; 0 for an empty database, which gets `create` directly).
 */
export interface SchemaHistory {
  readonly backend: string;
  readonly current: number;
  /** The current layout, for an empty database (`CREATE ... IF NOT EXISTS`). */
  readonly create: readonly string[];
  readonly steps: readonly MigrationStep[];
  inferVersion(db: SchemaDb): Promise<number>;
}

/** What opening a database did to its schema: the version found and the version now (equal: nothing to do). */
export interface SchemaMigration {
  readonly backend: string;
  /** Version found (0: an empty database). */
  readonly from: number;
  readonly to: number;
  /** The steps run, in order (empty when current or freshly created). */
  readonly steps: readonly string[];
}

/** The database's schema is newer than this collector's: a newer collector wrote it; never downgraded. */
export class SchemaVersionError extends CannotRunError {
  override readonly name: string = "SchemaVersionError";
  constructor(
    readonly backend: string,
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      `the ${backend} database's schema is version ${found}, newer than version ${supported} that this @calm-ldp/collector reads and writes: a newer collector migrated it; run that newer collector (a database is never migrated down)`,
    );
  }
}

/** The table holding a database's schema version: one row (id 1). Same SQL in DuckDB and PostgreSQL. */
export const VERSION_TABLE = `CREATE TABLE IF NOT EXISTS calm_schema_version (
  id INTEGER PRIMARY KEY, version INTEGER NOT NULL, migrated_at VARCHAR NOT NULL, checked_at VARCHAR)`;

/**
 * The step that added closing rounds, alike in DuckDB and PostgreSQL but for the
 * type of text columns (`text`: VARCHAR or TEXT): `calm_round_state` (when a
 * round closed and its ids were dropped) and `calm_closed_counts` (a closed
 * round's support counts). `to`: the version it makes. DDL only, O(1).
 */
export function roundClosingStep(to: number, text: "VARCHAR" | "TEXT"): MarkedStep {
  return {
    to,
    what: "calm_round_state and calm_closed_counts (closing rounds, dropping their ids)",
    mark: (db) => db.tableExists("calm_round_state"),
    run: async (db) => {
      await db.run(`CREATE TABLE IF NOT EXISTS calm_round_state (
        round_no INTEGER PRIMARY KEY, closed_at ${text} NOT NULL, ids_dropped_at ${text})`);
      await db.run(`CREATE TABLE IF NOT EXISTS calm_closed_counts (
        round_no INTEGER NOT NULL, view INTEGER NOT NULL, cell INTEGER NOT NULL, count BIGINT NOT NULL,
        PRIMARY KEY (round_no, view, cell))`);
    },
  };
}

/** The version stored in `calm_schema_version`, or undefined when the table or its row is absent. */
export async function storedVersion(
  db: Pick<SchemaDb, "rows">,
  tableExists: boolean,
): Promise<number | undefined> {
  if (!tableExists) return undefined;
  const rows = await db.rows("SELECT version FROM calm_schema_version WHERE id = 1");
  return rows.length === 0 ? undefined : Number(rows[0]![0]);
}

async function stamp(db: SchemaDb, version: number): Promise<void> {
  await db.run(
    `INSERT INTO calm_schema_version VALUES (1, ${version}, '${new Date().toISOString()}', NULL)
     ON CONFLICT (id) DO UPDATE SET version = excluded.version, migrated_at = excluded.migrated_at`,
  );
}

/**
 * Bring the database to `history.current`: an empty one gets the current layout;
 * an older one (stored or inferred version) runs every later step in order, one
 * per version, each recorded; a newer one is refused (`SchemaVersionError`); a
 * history without exactly one step per version is an error before anything runs.
 * `versionTableExists` tells whether `calm_schema_version` is there (a catalog
 * query of the backend). Cost: the steps' (most are DDL; a step that rewrites a
 * table is O(its rows)); O(1) statements when current.
 */
export async function migrateSchema(
  db: SchemaDb,
  history: SchemaHistory,
  versionTableExists: boolean,
): Promise<SchemaMigration> {
  const { backend, current } = history;
  checkHistory(history);
  const stored = await storedVersion(db, versionTableExists);
  const found = stored ?? (await history.inferVersion(db));
  if (found > current) throw new SchemaVersionError(backend, found, current);
  const atomically = db.atomically ?? ((body: () => Promise<void>) => body());
  await db.run(VERSION_TABLE);
  if (found === 0) {
    await atomically(async () => {
      for (const statement of history.create) await db.run(statement);
      await stamp(db, current);
    });
    return { backend, from: 0, to: current, steps: [] };
  }
  const steps: string[] = [];
  for (const step of history.steps) {
    if (step.to <= found) continue;
    await atomically(async () => {
      await step.run(db);
      await stamp(db, step.to);
    });
    steps.push(`${step.to - 1} -> ${step.to}: ${step.what}`);
  }
  if (stored === undefined && steps.length === 0) await stamp(db, current);
  return { backend, from: found, to: current, steps };
}

/**
 * `migrateSchema` for DuckDB and PostgreSQL (`current`: the version this code
 * writes; `steps` one per later version): an unversioned database's version
 * is the last whose mark it has (version 1's: `calm_rounds`; a later one's: its
 * step's `mark`; every mark read, in order, see {@link lastVersionMarked});
 * `create` is the current layout for an empty database. Cost: migrateSchema's,
 * plus one catalog query per version for an unversioned database.
 */
export async function migrateBackend(
  db: SchemaDb,
  backend: string,
  current: number,
  steps: readonly MarkedStep[],
  create: readonly string[],
): Promise<SchemaMigration> {
  const inferVersion = async (on: SchemaDb) => {
    const present = [await on.tableExists("calm_rounds")];
    for (const step of steps) present.push(await step.mark(on));
    return lastVersionMarked(present);
  };
  const history: SchemaHistory = { backend, current, create, steps, inferVersion };
  return migrateSchema(db, history, await db.tableExists("calm_schema_version"));
}

/** A history must have exactly one step per version 2..current, in order (else a programming error). */
export function checkHistory({ backend, current, steps }: SchemaHistory): void {
  const tos = steps.map((step) => step.to).join(",");
  const expected = Array.from({ length: current - 1 }, (_, i) => i + 2).join(",");
  if (tos !== expected)
    throw new Error(`${backend} schema history: steps to versions [${tos}], expected [${expected}]`);
}

/** The last version v such that `marks[0..v-1]` all hold (marks[i]: version i + 1's mark is present). */
export function lastVersionMarked(marks: readonly boolean[]): number {
  const missing = marks.indexOf(false);
  return missing === -1 ? marks.length : missing;
}
