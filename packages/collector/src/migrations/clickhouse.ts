import type { ClickHouseClient } from "@clickhouse/client";
import type { SchemaVersionCheck } from "../api.js";
import { SchemaVersionError } from "./runner.js";

/**
 * The ClickHouse layout this code writes: 1 rounds, reports, counters (and
 * their Distributed tables); 2 + round state and closed rounds' counts (git
 * history of storage/clickhouse/storage.ts); 3 reports in a plain MergeTree with
 * per-(round, view, cell) counts maintained as rows arrive (`calm_cell_counts`,
 * its materialized view, `calm_count_fixes`; storage/clickhouse/schema.ts). Layouts 1
 * and 2 kept reports in a ReplacingMergeTree and no maintained counts: opening
 * one is refused with a message naming the fix (a fresh database), not migrated.
 */
export const CLICKHOUSE_SCHEMA_VERSION = 3;

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

/** The version stored on one shard (0: none stored yet). */
async function shardVersion(shard: ClickHouseShard, db: string): Promise<number> {
  const rows = await shard.select(`SELECT max(version), count() FROM ${db}.calm_schema_version`);
  return Number(rows[0]?.[1] ?? 0) === 0 ? 0 : Number(rows[0]![0]);
}

/**
 * After the shard's tables are created (the current layout, `IF NOT EXISTS`):
 * its `calm_schema_version` table (one row per migration, TinyLog) is created,
 * a shard of a newer collector refused (`SchemaVersionError`), an unversioned or
 * older one stamped with CLICKHOUSE_SCHEMA_VERSION. O(1) queries per shard.
 */
export async function versionClickHouseShard(shard: ClickHouseShard, db: string): Promise<number> {
  await shard.command(
    `CREATE TABLE IF NOT EXISTS ${db}.calm_schema_version (version UInt32, migrated_at String) ENGINE = TinyLog`,
  );
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
