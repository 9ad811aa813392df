import type { ClickHouseClient } from "@clickhouse/client";
import {
  CLICKHOUSE_SCHEMA_VERSION,
  clickHouseShard,
  migrateClickHouseShard,
  reportsTable,
  versionClickHouseShard,
} from "../../migrations/clickhouse.js";
import type { SchemaMigration } from "../../migrations/runner.js";
import { REPORT_MARK } from "./write-offs.js";

/** Where the tables go: `database` on every shard of `cluster`, one client per shard in shard order. */
export interface ClusterTables {
  readonly shards: readonly string[];
  readonly database: string;
  readonly cluster: string;
}

/**
 * The collector's tables on every shard (SQL that ClickHouse 18.16 and current
 * releases accept; created when absent):
 * - `calm_reports` (`MergeTree`, sorting key (round, report id), a granule per
 *   `REPORT_GRANULE` rows): one row per
 *   stored report, its view and supported cells as an array. Rows are never
 *   collapsed, so two rows of one id (two collectors racing) stay visible to the
 *   writer that looks for them;
 * - `calm_cell_counts` (`SummingMergeTree`, key (round, view, cell)), filled by
 *   the materialized view `calm_cell_counts_mv` in the same INSERT as the rows:
 *   per inserted block, the rows per (round, view, cell) and per (round, view)
 *   under the cell `REPORT_MARK`;
 * - `calm_count_fixes` (`ReplacingMergeTree(copies)`): per id stored more than
 *   once, what takes its surplus rows out of the counts (see `writeOffCopies`);
 * - `calm_counters` (`SummingMergeTree`), `calm_rounds` (every round on every
 *   shard), `calm_round_state` (closing and dropping times, on every shard), and
 *   `Distributed` tables `calm_reports_all`, `calm_counters_all` over the
 *   cluster (the counts are read from each shard's local tables).
 * Each shard of an earlier layout (1 to 3) is migrated first, and its schema
 * version checked and stamped (migrations/clickhouse.ts); resolves with what
 * that did. Throws when a shard is not the cluster's shard of its position, or
 * its schema is newer than this collector's.
 */
export async function prepareTables(
  clients: readonly ClickHouseClient[],
  location: ClusterTables,
): Promise<SchemaMigration> {
  const { database: db, cluster } = location;
  const distributed = (table: string) =>
    `CREATE TABLE IF NOT EXISTS ${db}.${table}_all AS ${db}.${table}
       ENGINE = Distributed(${cluster}, ${db}, ${table})`;
  const schema = [
    `CREATE DATABASE IF NOT EXISTS ${db}`,
    `CREATE TABLE IF NOT EXISTS ${db}.calm_rounds (round_no UInt64, round_id String, created_at String,
       plan String, request String) ENGINE = ReplacingMergeTree() ORDER BY round_no`,
    reportsTable(db),
    `CREATE TABLE IF NOT EXISTS ${db}.calm_cell_counts (round_no UInt64, view UInt32, cell UInt32, n Int64)
       ENGINE = SummingMergeTree() ORDER BY (round_no, view, cell)`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.calm_cell_counts_mv TO ${db}.calm_cell_counts
       AS SELECT round_no, view, cell, toInt64(count()) AS n FROM ${db}.calm_reports
       ARRAY JOIN arrayPushFront(cells, toUInt32(${REPORT_MARK})) AS cell GROUP BY round_no, view, cell`,
    `CREATE TABLE IF NOT EXISTS ${db}.calm_count_fixes (round_no UInt64, report_id UUID, view UInt32,
       cell UInt32, n Int64, copies UInt64)
       ENGINE = ReplacingMergeTree(copies) ORDER BY (round_no, report_id, view, cell)`,
    `CREATE TABLE IF NOT EXISTS ${db}.calm_counters (round_no UInt64, name String, value Int64)
       ENGINE = SummingMergeTree() ORDER BY (round_no, name)`,
    `CREATE TABLE IF NOT EXISTS ${db}.calm_round_state (round_no UInt64, round_id String, closed_at String,
       ids_dropped_at String) ENGINE = MergeTree() ORDER BY round_no`,
    distributed("calm_reports"),
    distributed("calm_counters"),
  ];
  const migrations = await Promise.all(
    clients.map(async (client, i) => {
      const rows = await select(
        client,
        `SELECT shard_num FROM system.clusters WHERE cluster = '${cluster}' AND is_local = 1`,
      );
      const shards = await select(client, `SELECT count() FROM system.clusters WHERE cluster = '${cluster}'`);
      if (rows.length !== 1 || Number(rows[0]![0]) !== i + 1 || Number(shards[0]![0]) !== clients.length)
        throw new Error(
          `${location.shards[i]} is not shard ${i + 1} of ${clients.length} of cluster ${cluster} ` +
            `(its system.clusters: shard ${rows.map((r) => r[0]).join(",") || "none"} of ${shards[0]?.[0]})`,
        );
      const migration = await migrateClickHouseShard(clickHouseShard(client), db, schema);
      for (const statement of schema) {
        // Two collectors starting at once may race on CREATE ... IF NOT EXISTS: retry once.
        await client.command({ query: statement }).catch(() => client.command({ query: statement }));
      }
      await versionClickHouseShard(clickHouseShard(client), db);
      return migration;
    }),
  );
  // The shards' steps agree unless an earlier run was interrupted: the oldest layout found, the most steps.
  return {
    backend: "clickhouse",
    from: Math.min(...migrations.map((m) => m.from)),
    to: CLICKHOUSE_SCHEMA_VERSION,
    steps: migrations.reduce<readonly string[]>((a, m) => (m.steps.length > a.length ? m.steps : a), []),
  };
}

/** A query's rows (`JSONCompact`). */
export async function select(client: ClickHouseClient, query: string): Promise<unknown[][]> {
  const result = await client.query({ query, format: "JSONCompact" });
  return ((await result.json()) as { data: unknown[][] }).data;
}
