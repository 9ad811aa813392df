import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterAll } from "vitest";
import { parseClickHouseUrl } from "../src/clickhouse.js";
import { packageDir } from "./support.js";

const script = join(packageDir, "..", "..", ".ci", "setup-clickhouse");

/** The cluster URL with its own fresh database (the storage creates it on every shard). */
export function freshDatabase(url: string, name: string): string {
  const database = `calm_test_${name}_${process.pid}_${Date.now()}`;
  return url.replace(/\/[A-Za-z0-9_]*(\?|$)/, `/${database}$1`);
}

/**
 * A fresh database on the cluster at `clusterUrl` for the enclosing describe
 * block (see {@link freshDatabase}), dropped on every shard after it.
 */
export function suiteClickhouseDatabase(clusterUrl: string, name: string): string {
  const url = freshDatabase(clusterUrl, name);
  afterAll(() => dropDatabase(url));
  return url;
}

/** Run one SQL statement on every shard of `url` (HTTP interface). */
export async function onEveryShard(url: string, sql: string): Promise<string[]> {
  const { shards } = parseClickHouseUrl(url);
  return Promise.all(
    shards.map(async (shard) => {
      const response = await fetch(`${shard}/?max_query_size=4000000`, { method: "POST", body: sql });
      const text = await response.text();
      if (!response.ok) throw new Error(`${shard}: ${text}`);
      return text;
    }),
  );
}

/** Drop the database of `url` on every shard. */
export async function dropDatabase(url: string): Promise<void> {
  await onEveryShard(url, `DROP DATABASE IF EXISTS ${parseClickHouseUrl(url).database}`);
}

/** Stop (SIGTERM, waited for) or start shard `n` (1-based) of the cluster .ci/setup-clickhouse runs. */
export function shard(action: "stop" | "start", n: number): void {
  execFileSync("bash", [script, action, String(n)], {
    stdio: ["ignore", "ignore", "pipe"],
    timeout: 200_000,
  });
}
