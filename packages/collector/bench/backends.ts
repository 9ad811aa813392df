/**
 * The collector benchmark's stores: a fresh DuckDB file, a fresh PostgreSQL
 * database (`CALM_LDP_BENCH_POSTGRES_URL`, else the server .ci/setup-postgres
 * starts), or a fresh database on the ClickHouse cluster
 * (`CALM_LDP_BENCH_CLICKHOUSE_URL`, else the two-shard cluster .ci/setup-clickhouse
 * starts; `shards: 1` uses its one-shard cluster `calm_ldp_1`). Each reports the
 * bytes its data occupies on disk, so the benchmark can print bytes per report.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createReport } from "@calm-ldp/client";
import { seededRng } from "@calm-ldp/random";
import pg from "pg";
import {
  type ClickHouseStorageOptions,
  openClickHouseStorage,
  parseClickHouseUrl,
} from "../src/clickhouse.js";
import { openDuckDbStorage } from "../src/duckdb.js";
import { type CollectorStorage, type StoredRound, validateBatch } from "../src/index.js";
import { openPostgresStorage, type PostgresStorageOptions } from "../src/postgres.js";

export type BackendName = "duckdb" | "postgres" | "clickhouse";

export interface BenchBackend {
  readonly name: BackendName;
  /** What `test/fixtures/serve.ts` needs to open the same store in another process. */
  readonly location: string;
  readonly description: string;
  /** ClickHouse on this machine: the filesystem of its data folder (see {@link dataFilesystem}). */
  readonly dataOn?: string | undefined;
  open(): Promise<CollectorStorage>;
  /** Bytes of the collector's tables on disk (all shards). */
  bytes(): Promise<number>;
  /** Run SQL on the store (ClickHouse: on every shard) and return the text answers. */
  sql(statement: string): Promise<string[]>;
  /**
   * CPU seconds (user + system) each of the database server's processes has
   * used so far, by process id, when the server runs on this machine and its
   * processes can be read in `/proc` (PostgreSQL: the postmaster and its
   * children, so also other clients' backends); else undefined. In-process
   * DuckDB counts as the collector's CPU. See {@link cpuSecondsBetween}.
   */
  serverCpuSeconds(): Promise<Map<number, number> | undefined>;
  /**
   * ClickHouse: per table of the collector, the parts inserted and the rows
   * merges wrote so far on all shards, from `system.part_log` (undefined when
   * the servers keep none: `CALM_LDP_CH_PART_LOG=1 bash .ci/setup-clickhouse`
   * on a cluster of one's own); undefined for the other backends.
   */
  partLog?(): Promise<PartLogLine[] | undefined>;
  dispose(): Promise<void>;
}

/** One table's part events on all shards: inserted parts and rows, merges and the rows they wrote, their seconds. */
export interface PartLogLine {
  readonly table: string;
  readonly inserts: number;
  readonly rows: number;
  readonly merges: number;
  readonly mergedRows: number;
  readonly mergeSeconds: number;
}

/** A {@link PartLogLine} as the bench prints it: "rewritten" is rows written by merges per row inserted. */
export const partLogText = (l: PartLogLine) =>
  `${l.table}: ${l.inserts} parts inserted (${(l.rows / Math.max(1, l.inserts)).toFixed(0)} rows each), ${l.merges} merges wrote ${l.mergedRows} rows in ${l.mergeSeconds.toFixed(2)} s: every row rewritten ${(l.mergedRows / Math.max(1, l.rows)).toFixed(1)} times`;

/** The fields after the command of `/proc/<pid>/stat` (field 1 the parent, 11 and 12 utime and stime), or undefined if gone. */
function statFields(pid: number | string): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  } catch {
    return undefined; // the process ended meanwhile
  }
}

/** utime + stime of a process in seconds, from its {@link statFields} (clock ticks of 1/100 s). */
const cpuSeconds = (fields: readonly string[]) => (Number(fields[11]) + Number(fields[12])) / 100;

/** CPU seconds of process `root` and of each of its children (`/proc`), or undefined if `/proc` cannot be read. */
function processTreeCpuSeconds(root: number): Map<number, number> | undefined {
  const rootFields = statFields(root);
  if (rootFields === undefined) return undefined;
  const seconds = new Map([[root, cpuSeconds(rootFields)]]);
  for (const entry of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(entry)) continue;
    const fields = statFields(entry);
    if (fields !== undefined && Number(fields[1]) === root) seconds.set(Number(entry), cpuSeconds(fields));
  }
  return seconds;
}

/**
 * CPU seconds used between two readings of {@link BenchBackend.serverCpuSeconds}:
 * by each process of the second, less what it had used at the first (0 for one
 * started meanwhile). A process that ended meanwhile is not counted (its time
 * since the first reading is lost), so this is a lower bound.
 */
export function cpuSecondsBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}

const ci = fileURLToPath(new URL("../../../.ci/", import.meta.url));
const setup = (script: string) =>
  execFileSync("bash", [join(ci, script)], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] })
    .trim()
    .split("\n")
    .pop()!;

/** The data folder of the cluster .ci/setup-clickhouse runs on this machine (`$CALM_LDP_CH_DATA`). */
export const clickHouseDataFolder = () => process.env.CALM_LDP_CH_DATA ?? "/var/tmp/calm-ldp-clickhouse";

/**
 * The filesystem holding `path` (`findmnt`), e.g. "ext4 without journal
 * (/dev/vda)"; an ext4's journal is read from `/sys/fs/ext4/<device>/journal_task`
 * ("<none>" without one). Matters for ClickHouse: each part is a dozen new files,
 * and an ext4 without journal makes every new file skip the inodes freed in the
 * last minutes (`recently_deleted`), so its cost grows with what was deleted
 * before (README, "Measured on this machine"). Undefined when `findmnt` fails.
 */
export function dataFilesystem(path: string): string | undefined {
  let source: string;
  let type: string;
  try {
    [source, type] = execFileSync("findmnt", ["-n", "-o", "SOURCE,FSTYPE", "--target", path], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    })
      .trim()
      .split(/\s+/) as [string, string];
  } catch {
    return undefined;
  }
  if (type !== "ext4") return `${type} (${source})`;
  let task: string;
  try {
    task = readFileSync(`/sys/fs/ext4/${basename(source)}/journal_task`, "utf8").trim();
  } catch {
    return `ext4 (${source})`;
  }
  return `ext4 ${task === "<none>" ? "without" : "with"} journal (${source})`;
}

/**
 * CPU seconds of the first `shards` servers .ci/setup-clickhouse started on this
 * machine (their pid files in `$CALM_LDP_CH_DATA/shardN`, all threads of each), or
 * undefined when the cluster is elsewhere (`CALM_LDP_BENCH_CLICKHOUSE_URL`) or a pid
 * file cannot be read.
 */
function clickHouseCpuSeconds(shards: number): Map<number, number> | undefined {
  if (process.env.CALM_LDP_BENCH_CLICKHOUSE_URL !== undefined) return undefined;
  const data = clickHouseDataFolder();
  const seconds = new Map<number, number>();
  for (let shard = 1; shard <= shards; shard++) {
    let pid: number;
    try {
      pid = Number(readFileSync(join(data, `shard${shard}`, "server.pid"), "utf8").trim());
    } catch {
      return undefined;
    }
    const fields = statFields(pid);
    if (fields === undefined) return undefined;
    seconds.set(pid, cpuSeconds(fields));
  }
  return seconds;
}

export async function benchBackend(
  name: BackendName,
  shards: number,
  postgres: PostgresStorageOptions = {},
  clickhouse: ClickHouseStorageOptions = {},
): Promise<BenchBackend> {
  if (name === "duckdb") {
    const dir = mkdtempSync(join(tmpdir(), "calm-collector-bench-"));
    const file = join(dir, "bench.duckdb");
    return {
      name,
      location: file,
      description: "DuckDB file",
      open: () => openDuckDbStorage(file),
      bytes: async () => [file, `${file}.wal`].filter(existsSync).reduce((s, f) => s + statSync(f).size, 0),
      sql: async () => {
        throw new Error("sql: not for DuckDB here");
      },
      serverCpuSeconds: async () => undefined,
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (name === "postgres") {
    const server = process.env.CALM_LDP_BENCH_POSTGRES_URL ?? setup("setup-postgres");
    const database = `calm_bench_${process.pid}`;
    const admin = new pg.Client({ connectionString: server });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    const url = new URL(server);
    url.pathname = `/${database}`;
    const location = url.toString();
    let postmaster: number | null | undefined;
    const query = async (statement: string) => {
      const client = new pg.Client({ connectionString: location });
      await client.connect();
      try {
        return (await client.query({ text: statement, rowMode: "array" })).rows.map((r) => r.join("\t"));
      } finally {
        await client.end();
      }
    };
    return {
      name,
      location,
      description: "PostgreSQL",
      open: () => openPostgresStorage(location, postgres),
      bytes: async () =>
        Number(
          (
            await query(
              "SELECT sum(pg_total_relation_size(oid)) FROM pg_class WHERE relname LIKE 'calm\\_%' AND relkind = 'r'",
            )
          )[0],
        ),
      sql: async (statement) => query(statement),
      serverCpuSeconds: async () => {
        // The postmaster: the parent of a connection's backend (read while it is connected).
        if (postmaster === undefined) {
          const client = new pg.Client({ connectionString: location });
          await client.connect();
          try {
            const backend = Number((await client.query("SELECT pg_backend_pid() AS pid")).rows[0].pid);
            postmaster = existsSync(`/proc/${backend}/stat`)
              ? Number(readFileSync(`/proc/${backend}/stat`, "utf8").split(") ")[1]!.split(" ")[1])
              : null;
          } finally {
            await client.end();
          }
        }
        return postmaster === null ? undefined : processTreeCpuSeconds(postmaster);
      },
      dispose: async () => {
        const client = new pg.Client({ connectionString: server });
        await client.connect();
        await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        await client.end();
      },
    };
  }
  const cluster = process.env.CALM_LDP_BENCH_CLICKHOUSE_URL ?? setup("setup-clickhouse");
  const parsed = parseClickHouseUrl(cluster);
  const database = `calm_bench_${process.pid}`;
  const hosts = parsed.shards.slice(0, shards).map((s) => s.replace(/^https?:\/\//, ""));
  if (hosts.length < shards) throw new Error(`the cluster has ${parsed.shards.length} shards, not ${shards}`);
  const location = `http://${hosts.join(",")}/${database}?cluster=${shards === parsed.shards.length ? parsed.cluster : `${parsed.cluster}_${shards}`}`;
  const sql = (statement: string) =>
    Promise.all(
      parsed.shards.slice(0, shards).map(async (shard) => {
        const response = await fetch(`${shard}/?max_query_size=4000000`, { method: "POST", body: statement });
        const text = await response.text();
        if (!response.ok) throw new Error(`${shard}: ${text}`);
        return text.trim();
      }),
    );
  return {
    name,
    location,
    description: `ClickHouse ${shards} shard${shards > 1 ? "s" : ""}`,
    ...(process.env.CALM_LDP_BENCH_CLICKHOUSE_URL === undefined
      ? { dataOn: dataFilesystem(clickHouseDataFolder()) }
      : {}),
    open: () => openClickHouseStorage(location, clickhouse),
    bytes: async () =>
      (
        await sql(
          `SELECT sum(bytes_on_disk) FROM system.parts WHERE database = '${database}' AND active AND table LIKE 'calm\\_%'`,
        )
      ).reduce((s, b) => s + Number(b), 0),
    sql,
    serverCpuSeconds: async () => clickHouseCpuSeconds(shards),
    partLog: async () => {
      const logs = await sql(
        "SELECT count() FROM system.tables WHERE database = 'system' AND name = 'part_log'",
      );
      if (logs.some((n) => n === "0")) return undefined;
      await sql("SYSTEM FLUSH LOGS");
      // event_type 1 NEW_PART (an insert's), 2 MERGE_PARTS; duration_ms is wall time.
      const rows = await sql(
        `SELECT table, countIf(event_type = 1), sumIf(rows, event_type = 1), countIf(event_type = 2),
           sumIf(rows, event_type = 2), sumIf(duration_ms, event_type = 2) FROM system.part_log
         WHERE database = '${database}' AND table IN ('calm_reports', 'calm_cell_counts') GROUP BY table
         ORDER BY table DESC FORMAT TSV`,
      );
      const byTable = new Map<string, number[]>();
      for (const line of rows.flatMap((text) => text.split("\n")).filter((l) => l !== "")) {
        const [table, ...values] = line.split("\t");
        const sum = byTable.get(table!) ?? [0, 0, 0, 0, 0];
        byTable.set(
          table!,
          sum.map((v, i) => v + Number(values[i])),
        );
      }
      return [...byTable].map(([table, [inserts, rows, merges, mergedRows, ms]]) => ({
        table,
        inserts: inserts!,
        rows: rows!,
        merges: merges!,
        mergedRows: mergedRows!,
        mergeSeconds: ms! / 1000,
      }));
    },
    dispose: async () => {
      await sql(`DROP DATABASE IF EXISTS ${database}`);
    },
  };
}

/**
 * Store `n` seeded reports of uniform binary records (one bit per attribute of
 * `round`) in batches of `batch`, each validated as the server does; returns the
 * support rows written and the seconds spent inside `storeReports`.
 */
export async function storeUniformReports(
  storage: CollectorStorage,
  round: StoredRound,
  n: number,
  batch: number,
): Promise<{ supportRows: number; storeSeconds: number }> {
  const rng = seededRng(1);
  const d = round.plan.schema.attributes.length;
  let supportRows = 0;
  let storeSeconds = 0;
  for (let from = 0; from < n; from += batch) {
    const wire = Array.from({ length: Math.min(batch, n - from) }, () =>
      createReport(
        round.plan,
        Array.from({ length: d }, () => rng.nextUint32() & 1),
        { rng },
      ),
    );
    const accepted = validateBatch(round.id, round.plan, { round: round.id, reports: wire });
    for (const report of accepted) supportRows += report.cells.length;
    const t = performance.now();
    await storage.storeReports(round, accepted);
    storeSeconds += (performance.now() - t) / 1000;
  }
  return { supportRows, storeSeconds };
}
