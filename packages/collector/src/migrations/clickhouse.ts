import type { ClickHouseClient } from "@clickhouse/client";
import type { SchemaVersionCheck } from "../api.js";
import { type SchemaMigration, SchemaVersionError } from "./runner.js";

/**
 * The ClickHouse layout this code writes: 1 rounds, reports, counters (and
 * their Distributed tables); 2 + round state and closed rounds' counts (git
 * history of storage/clickhouse/storage.ts); 3 reports in a plain MergeTree with
 * per-(round, view, cell) counts maintained as rows arrive (`calm_cell_counts`,
 * its materialized view, `calm_count_fixes`; storage/clickhouse/schema.ts). Layouts 1
 * and 2 kept reports in a ReplacingMergeTree read with FINAL and no maintained
 * counts: `migrateClickHouseShard` takes them to 3 (see CLICKHOUSE_STEPS); 4
 * `calm_reports` indexed every {@link REPORT_GRANULE} rows instead of 8,192, so a
 * lookup of g ids reads at most g granules of that many rows, not g x 8,192.
 */
export const CLICKHOUSE_SCHEMA_VERSION = 4;

/**
 * Rows per granule (`index_granularity`) of `calm_reports` from layout 4: a
 * lookup of an id reads the granule its key falls in. 8,192 (the default) made
 * each id of a lookup read 8,192 rows once the round held more granules than
 * the lookup ids (measured: 1,600 ids in 5,000,000 rows, 120 ms of server CPU;
 * 32 ms at 512); smaller granules cost more index (24 bytes per granule in
 * memory) and, in a small round whose granules every lookup touches anyway,
 * ~15% more per lookup.
 */
export const REPORT_GRANULE = 512;

/** Layout 4's `calm_reports` (also in storage/clickhouse/schema.ts's current layout). */
export const reportsTable = (db: string) =>
  `CREATE TABLE IF NOT EXISTS ${db}.calm_reports (round_no UInt64, report_id UUID, view UInt32,
       cells Array(UInt32)) ENGINE = MergeTree() ORDER BY (round_no, report_id)
       SETTINGS index_granularity = ${REPORT_GRANULE}`;

/** A shard's queries, as storage/clickhouse/storage.ts runs them. */
export interface ClickHouseShard {
  select(query: string): Promise<unknown[][]>;
  command(query: string): Promise<void>;
}

/** `client` as a `ClickHouseShard`. */
export function clickHouseShard(client: ClickHouseClient): ClickHouseShard {
  return {
    select: async (query) => {
      const result = await client.query({ query, format: "JSONCompact" });
      return ((await result.json()) as { data: unknown[][] }).data;
    },
    command: async (query) => {
      await client.command({ query });
    },
  };
}

/**
 * The table of a shard's schema versions: one row per migration, in a MergeTree.
 * Collectors starting at once read and stamp it concurrently; ClickHouse's TinyLog,
 * which older collectors made it in, has no locks, and a read beside an insert fails
 * ("File not found: .../tmp_sizes.json"; see {@link versionTableToMergeTree}).
 */
export const versionTable = (db: string, name = "calm_schema_version") =>
  `CREATE TABLE IF NOT EXISTS ${db}.${name} (version UInt32, migrated_at String) ENGINE = MergeTree() ORDER BY version`;

/**
 * A shard's version table made by an older collector (TinyLog) copied into a
 * MergeTree and swapped in by one RENAME; its rows kept. Idempotent: a leftover
 * copy of an interrupted run is dropped first, the old table last. O(rows), a few
 * rows. Run where migrations run (one process per database).
 */
async function versionTableToMergeTree(shard: ClickHouseShard, db: string): Promise<void> {
  if ((await engineOf(shard, db, "calm_schema_version")) !== "TinyLog") return;
  await shard.command(`DROP TABLE IF EXISTS ${db}.calm_schema_version_next`);
  await shard.command(versionTable(db, "calm_schema_version_next"));
  await shard.command(
    `INSERT INTO ${db}.calm_schema_version_next SELECT version, migrated_at FROM ${db}.calm_schema_version`,
  );
  await shard.command(`DROP TABLE IF EXISTS ${db}.calm_schema_version_tinylog`);
  await shard.command(
    `RENAME TABLE ${db}.calm_schema_version TO ${db}.calm_schema_version_tinylog, ` +
      `${db}.calm_schema_version_next TO ${db}.calm_schema_version`,
  );
  await shard.command(`DROP TABLE ${db}.calm_schema_version_tinylog`);
}

/** The version stored on one shard (0: none stored yet). */
export async function shardVersion(shard: ClickHouseShard, db: string): Promise<number> {
  const rows = await shard.select(`SELECT max(version), count() FROM ${db}.calm_schema_version`);
  return Number(rows[0]?.[1] ?? 0) === 0 ? 0 : Number(rows[0]![0]);
}

/**
 * After the shard's tables are created (the current layout, `IF NOT EXISTS`):
 * its `calm_schema_version` table (one row per migration, a MergeTree) is created,
 * a shard of a newer collector refused (`SchemaVersionError`), an unversioned or
 * older one stamped with CLICKHOUSE_SCHEMA_VERSION. O(1) queries per shard.
 */
export async function versionClickHouseShard(shard: ClickHouseShard, db: string): Promise<number> {
  await shard.command(versionTable(db));
  const found = await shardVersion(shard, db);
  if (found > CLICKHOUSE_SCHEMA_VERSION)
    throw new SchemaVersionError("clickhouse", found, CLICKHOUSE_SCHEMA_VERSION);
  if (found < CLICKHOUSE_SCHEMA_VERSION)
    await shard.command(
      `INSERT INTO ${db}.calm_schema_version VALUES (${CLICKHOUSE_SCHEMA_VERSION}, '${new Date().toISOString()}')`,
    );
  return found;
}

/** Readiness of the cluster's schema: the lowest version over the shards against CLICKHOUSE_SCHEMA_VERSION. */
export async function clickHouseSchemaVersion(
  shards: readonly ClickHouseShard[],
  db: string,
): Promise<SchemaVersionCheck> {
  const versions = await Promise.all(shards.map((shard) => shardVersion(shard, db)));
  return { found: Math.min(...versions), expected: CLICKHOUSE_SCHEMA_VERSION };
}

/** A table's engine on the shard, or undefined when it does not exist. */
async function engineOf(shard: ClickHouseShard, db: string, table: string): Promise<string | undefined> {
  const rows = await shard.select(
    `SELECT engine FROM system.tables WHERE database = '${db}' AND name = '${table}'`,
  );
  return rows.length === 0 ? undefined : String(rows[0]![0]);
}

/** Rows per granule of a table (its `index_granularity`, 8,192 when its DDL names none), or undefined when absent. */
async function granuleOf(shard: ClickHouseShard, db: string, table: string): Promise<number | undefined> {
  const rows = await shard.select(
    `SELECT create_table_query FROM system.tables WHERE database = '${db}' AND name = '${table}'`,
  );
  if (rows.length === 0) return undefined;
  const setting = /index_granularity\s*=\s*(\d+)/.exec(String(rows[0]![0]));
  return setting ? Number(setting[1]) : 8192;
}

/**
 * The layout of a shard that stores no version (written before versions were
 * stored), read from its tables: 0 empty; 1 reports in a ReplacingMergeTree;
 * 2 that and `calm_round_state` (or step 3 interrupted after its rename); 3
 * reports in a MergeTree; 4 in granules of {@link REPORT_GRANULE} rows.
 */
async function inferShardVersion(shard: ClickHouseShard, db: string): Promise<number> {
  const reports = await engineOf(shard, db, "calm_reports");
  if (reports === undefined) return (await engineOf(shard, db, "calm_reports_v2")) ? 2 : 0;
  if (reports === "MergeTree") return (await granuleOf(shard, db, "calm_reports")) === REPORT_GRANULE ? 4 : 3;
  return (await engineOf(shard, db, "calm_round_state")) ? 2 : 1;
}

/** One step from version `to - 1` to `to` on one shard; `create` is the current layout's DDL. Idempotent. */
interface ClickHouseStep {
  readonly to: number;
  readonly what: string;
  run(shard: ClickHouseShard, db: string, create: readonly string[]): Promise<void>;
}

/**
 * Step 3 (reports in a MergeTree, maintained counts) from a layout-2 shard:
 * `calm_reports` is renamed `calm_reports_v2`; the layout-3 tables are made
 * afresh (dropping what an interrupted run left) and filled: the rows of every
 * round whose ids this shard has not dropped, read `FINAL` (one row per id, as
 * layout 2 counted them; the materialized view counts them as they are
 * inserted), and for the rounds it dropped their counts kept at closing
 * (`calm_closed_counts`, into `calm_cell_counts`); then `calm_reports_v2` goes
 * (the mark that the copy is whole), and the closed counts. ClickHouse has no
 * transactions: a run interrupted before the old table is dropped is redone
 * from the start by the next open; after it, only the drops are left.
 * Cost: O(held report rows) per shard, copied inside ClickHouse.
 */
async function toMaintainedCounts(shard: ClickHouseShard, db: string, create: readonly string[]) {
  const reports = await engineOf(shard, db, "calm_reports");
  if (reports !== undefined && reports !== "MergeTree")
    await shard.command(`RENAME TABLE ${db}.calm_reports TO ${db}.calm_reports_v2`);
  if (await engineOf(shard, db, "calm_reports_v2")) {
    for (const table of ["calm_cell_counts_mv", "calm_cell_counts", "calm_count_fixes", "calm_reports"])
      await shard.command(`DROP TABLE IF EXISTS ${db}.${table}`);
    for (const statement of create) await shard.command(statement);
    const dropped = `(SELECT round_no FROM ${db}.calm_round_state WHERE ids_dropped_at != '')`;
    await shard.command(
      `INSERT INTO ${db}.calm_reports SELECT round_no, report_id, view, cells
       FROM ${db}.calm_reports_v2 FINAL WHERE round_no NOT IN ${dropped}`,
    );
    if (await engineOf(shard, db, "calm_closed_counts"))
      await shard.command(
        `INSERT INTO ${db}.calm_cell_counts SELECT round_no, view, cell, toInt64(count)
         FROM ${db}.calm_closed_counts FINAL WHERE round_no IN ${dropped}`,
      );
    await shard.command(`DROP TABLE ${db}.calm_reports_v2`);
  }
  await shard.command(`DROP TABLE IF EXISTS ${db}.calm_closed_counts_all`);
  await shard.command(`DROP TABLE IF EXISTS ${db}.calm_closed_counts`);
}

/**
 * Step 4 (`calm_reports` in granules of {@link REPORT_GRANULE} rows) from a
 * layout-3 shard: the materialized view that counts inserted rows is dropped
 * first (the copy must not count the rows again; `prepareTables` makes it anew
 * after the migration), `calm_reports` renamed `calm_reports_v3`, made afresh
 * (dropping what an interrupted run left) and filled with every row of
 * `calm_reports_v3` (copies of raced ids too: their write-offs stay valid),
 * then `calm_reports_v3` goes (the mark that the copy is whole). The counts
 * tables are not touched. A run interrupted before that drop is redone from
 * the copy by the next open. Cost: O(held report rows) per shard, copied inside ClickHouse.
 */
async function toFineGranules(shard: ClickHouseShard, db: string) {
  const granule = await granuleOf(shard, db, "calm_reports");
  if (granule !== undefined && granule !== REPORT_GRANULE) {
    await shard.command(`DROP TABLE IF EXISTS ${db}.calm_cell_counts_mv`);
    await shard.command(`RENAME TABLE ${db}.calm_reports TO ${db}.calm_reports_v3`);
  }
  if (await engineOf(shard, db, "calm_reports_v3")) {
    await shard.command(`DROP TABLE IF EXISTS ${db}.calm_cell_counts_mv`);
    await shard.command(`DROP TABLE IF EXISTS ${db}.calm_reports`);
    await shard.command(reportsTable(db));
    await shard.command(
      `INSERT INTO ${db}.calm_reports SELECT round_no, report_id, view, cells FROM ${db}.calm_reports_v3`,
    );
    await shard.command(`DROP TABLE ${db}.calm_reports_v3`);
  }
}

/**
 * The steps from the earlier layouts, one per version (git history of
 * clickhouse-storage.ts: layout 1 at e341907, 2 before ae03b9d). Step 2 makes
 * the tables closing needs (its Distributed `calm_closed_counts_all` is left out:
 * step 3 drops it, and nothing between reads it).
 */
const CLICKHOUSE_STEPS: readonly ClickHouseStep[] = [
  {
    to: 2,
    what: "calm_round_state and calm_closed_counts (closing rounds, dropping their ids)",
    run: async (shard, db) => {
      await shard.command(`CREATE TABLE IF NOT EXISTS ${db}.calm_round_state (round_no UInt64,
        round_id String, closed_at String, ids_dropped_at String) ENGINE = MergeTree() ORDER BY round_no`);
      await shard.command(`CREATE TABLE IF NOT EXISTS ${db}.calm_closed_counts (round_no UInt64, view UInt32,
        cell UInt32, count UInt64) ENGINE = ReplacingMergeTree() ORDER BY (round_no, view, cell)`);
    },
  },
  {
    to: 3,
    what: "calm_reports as a MergeTree with maintained counts (rows copied FINAL; O(held reports))",
    run: toMaintainedCounts,
  },
  {
    to: 4,
    what: `calm_reports in granules of ${REPORT_GRANULE} rows (rows copied; O(held reports))`,
    run: toFineGranules,
  },
];

/**
 * Before a shard's tables are created: its schema version (stored, or inferred
 * from its tables), a newer one refused (`SchemaVersionError`), an older one
 * (layouts 1 to 3) taken to CLICKHOUSE_SCHEMA_VERSION one step per version,
 * each step stamped once done. `create` is the current layout's DDL (`CREATE ...
 * IF NOT EXISTS`). Run by one process at a time per database (the migrate
 * command, or the first collector opened after an upgrade). O(1) queries when
 * current; the copies of steps 3 and 4 otherwise.
 */
export async function migrateClickHouseShard(
  shard: ClickHouseShard,
  db: string,
  create: readonly string[],
): Promise<SchemaMigration> {
  await shard.command(`CREATE DATABASE IF NOT EXISTS ${db}`);
  await shard.command(versionTable(db));
  await versionTableToMergeTree(shard, db);
  const stored = await shardVersion(shard, db);
  const found = stored > 0 ? stored : await inferShardVersion(shard, db);
  if (found > CLICKHOUSE_SCHEMA_VERSION)
    throw new SchemaVersionError("clickhouse", found, CLICKHOUSE_SCHEMA_VERSION);
  const steps: string[] = [];
  for (const step of CLICKHOUSE_STEPS) {
    if (found === 0 || step.to <= found) continue;
    await step.run(shard, db, create);
    await shard.command(
      `INSERT INTO ${db}.calm_schema_version VALUES (${step.to}, '${new Date().toISOString()}')`,
    );
    steps.push(`${step.to - 1} -> ${step.to}: ${step.what}`);
  }
  return { backend: "clickhouse", from: found, to: CLICKHOUSE_SCHEMA_VERSION, steps };
}
