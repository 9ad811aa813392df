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

/**
 * `body` with a fresh database on the cluster at `clusterUrl` (its URL and
 * name; see {@link freshDatabase}), dropped on every shard after it, also when
 * it throws.
 */
export async function withClickhouseDatabase<T>(
  clusterUrl: string,
  name: string,
  body: (url: string, database: string) => Promise<T>,
): Promise<T> {
  const url = freshDatabase(clusterUrl, name);
  try {
    return await body(url, parseClickHouseUrl(url).database);
  } finally {
    await dropDatabase(url);
  }
}

/** Stop (SIGTERM, waited for) or start shard `n` (1-based) of the cluster .ci/setup-clickhouse runs. */
export function shard(action: "stop" | "start", n: number): void {
  execFileSync("bash", [script, action, String(n)], {
    stdio: ["ignore", "ignore", "pipe"],
    timeout: 200_000,
  });
}

/**
 * A full recount of round `roundNo` from the report rows on every shard, one row
 * per id (of several rows of an id, the least by view, then cells: the one the
 * maintained counts keep): per view, the reports and the count of each cell.
 * O(rows) read over HTTP; for tests.
 */
export async function recountFromRows(
  url: string,
  roundNo: number,
  cellsPerView: readonly number[],
): Promise<{ reportsPerView: number[]; support: number[][]; rows: number; ids: number }> {
  const { database } = parseClickHouseUrl(url);
  const texts = await onEveryShard(
    url,
    `SELECT toString(report_id), view, arrayStringConcat(arrayMap(c -> toString(c), cells), ',')
     FROM ${database}.calm_reports WHERE round_no = ${roundNo}`,
  );
  const kept = new Map<string, { view: number; cells: number[] }>();
  let rows = 0;
  for (const line of texts.join("").split("\n")) {
    if (line === "") continue;
    rows++;
    const [id, view, cells] = line.split("\t");
    const row = { view: Number(view), cells: cells === "" ? [] : cells!.split(",").map(Number) };
    const old = kept.get(id!);
    const key = (r: { view: number; cells: number[] }) => [r.view, ...r.cells];
    if (old === undefined || lexLess(key(row), key(old))) kept.set(id!, row);
  }
  const reportsPerView = cellsPerView.map(() => 0);
  const support = cellsPerView.map((cells) => Array.from({ length: cells }, () => 0));
  for (const { view, cells } of kept.values()) {
    reportsPerView[view]!++;
    for (const cell of cells) support[view]![cell]!++;
  }
  return { reportsPerView, support, rows, ids: kept.size };
}

/** a < b as number lists compared element by element, a prefix first. */
function lexLess(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return a.length < b.length;
}
