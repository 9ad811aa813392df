/**
 * What one shard's server spends per statement of a group, without a collector,
 * load generator or HTTP framework around it: the floor under the ClickHouse
 * ingest path on this machine. On shard 1 of the bench cluster (as
 * bench/index.ts sets it up), in a fresh database with the collector's tables:
 * for each `--rows` g (rows per insert, default 800 and 3,200: 800 is the most
 * one shard's insert can hold under bench/index.ts's default load, 16 requests
 * of 100 reports in flight over 2 shards, since a request is answered only after
 * its insert), `--inserts` N (default 100) inserts one after another of g fresh
 * reports (GRR-like: one cell of 4, view of 28) in the collector's `RowBinary`:
 * 1. into `calm_reports` (its counts through the materialized view: two parts
 *    per insert), merges stopped (`SYSTEM STOP MERGES`): the inserts alone;
 * 2. the same into a copy of `calm_reports` without the view (one part per
 *    insert), merges stopped: what a part costs when nothing else is written;
 * 3. into `calm_reports` with merges running, the CPU counted until the
 *    table's merges are done: the inserts and the merges they cause;
 * 4. N of the writer's lookups (`report_id IN ids`, g fresh ids as external
 *    data) against the table left by 3 (`--table-rows` R: first topped up to R
 *    rows, a round of that size on the shard), and N of its checks of the
 *    ids inserted in 3, reading every part (as a chain's first group does; a
 *    later group's check reads only parts written since its lookup).
 * The server's CPU (utime + stime of all its threads, `/proc`, 10 ms ticks) over
 * each, less its idle rate (measured first), is printed per statement and per
 * report. Each report goes to one shard, so per report is also the floor of
 * bench/index.ts's "database server" CPU per report (both servers) at that
 * group size, which adds the check query and the writer's other statements.
 * Run: `npx tsx bench/clickhouse-floor.ts [--rows 800,3200] [--inserts 100] [--table-rows 0]`.
 * Cost: N x (4 statements) per g; ~1 minute at the defaults on this machine.
 */
import { randomUUID } from "node:crypto";
import { closeSync, mkdirSync, openSync, rmSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { AcceptedReport } from "../src/api.js";
import { parseClickHouseUrl } from "../src/clickhouse.js";
import { ShardHttp } from "../src/storage/clickhouse/http.js";
import { reportRowsBinary, uuidsBinary } from "../src/storage/clickhouse/rowbinary.js";
import { uuidWords } from "../src/uuid-set.js";
import { benchBackend, clickHouseDataFolder, cpuSecondsBetween, dataFilesystem } from "./backends.js";

const argument = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const sizes = argument("rows", "800,3200").split(",").map(Number);
const inserts = Number(argument("inserts", "100"));
// Rows of the round on the shard before the lookups and checks (topped up server-side); 0: as inserted.
const tableRows = Number(argument("table-rows", "0"));
for (const g of [...sizes, inserts])
  if (!Number.isSafeInteger(g) || g < 1)
    throw new Error(`--rows and --inserts must be positive integers (got ${sizes.join(",")} and ${inserts})`);

const backend = await benchBackend("clickhouse", 1);
const storage = await backend.open(); // creates the collector's tables on shard 1
await storage.close();
const location = parseClickHouseUrl(backend.location);
const database = location.database;
const shard = new ShardHttp(location.shards[0]!, location.username, location.password, database, 600_000);
const cpu = async () => {
  const seconds = await backend.serverCpuSeconds();
  if (seconds === undefined) throw new Error("the server's CPU cannot be read (a cluster elsewhere?)");
  return seconds;
};

/** Server CPU seconds per second while idle (its background threads), over 3 s. */
async function idleRate(): Promise<number> {
  const before = await cpu();
  const started = performance.now();
  await sleep(3000);
  return cpuSecondsBetween(before, await cpu()) / ((performance.now() - started) / 1000);
}

/** Server CPU seconds used by `body`, less `idle` per second of its duration. */
async function serverSeconds(idle: number, body: () => Promise<void>): Promise<number> {
  const before = await cpu();
  const started = performance.now();
  await body();
  const wall = (performance.now() - started) / 1000;
  return cpuSecondsBetween(before, await cpu()) - idle * wall;
}

function freshRows(g: number): { rows: Buffer; ids: Buffer } {
  const reports: AcceptedReport[] = [];
  const words = new Uint32Array(4 * g);
  for (let i = 0; i < g; i++) {
    const id = randomUUID();
    uuidWords(id, words, 4 * i);
    reports.push({ id, view: i % 28, cells: [i % 4] });
  }
  return { rows: reportRowsBinary(1, reports, words), ids: uuidsBinary(words, g) };
}

/** This process's CPU microseconds per empty file created in `dir` (2,000 files, removed after). */
function fileCreationProbe(dir: string): number {
  mkdirSync(dir, { recursive: true });
  try {
    const before = process.cpuUsage();
    for (let i = 0; i < 2000; i++) closeSync(openSync(join(dir, `f${i}`), "w"));
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 2000;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function mergesDone(table: string): Promise<void> {
  for (let quiet = 0; quiet < 2; ) {
    await sleep(200);
    const [[running]] = (await shard.query(
      `SELECT count() FROM system.merges WHERE database = '${database}' AND table = '${table}'`,
    )) as [[string]];
    quiet = running === "0" ? quiet + 1 : 0;
  }
}

const line = (what: string, seconds: number, g: number) =>
  `    ${what.padEnd(58)} ${((seconds / inserts) * 1000).toFixed(2).padStart(7)} ms per statement, ${((seconds / inserts / g) * 1e6).toFixed(1).padStart(5)} us per report`;

try {
  await shard.query(`CREATE TABLE ${database}.calm_reports_plain AS ${database}.calm_reports`);
  const idle = await idleRate();
  console.log(
    `ClickHouse floor (shard 1, ${location.shards[0]}, Node ${process.version}): ${inserts} statements each; server idle ${(idle * 1000).toFixed(1)} ms CPU per second (subtracted)`,
  );
  const data = clickHouseDataFolder();
  const probe = fileCreationProbe(join(data, `..`, `calm-fs-probe-${process.pid}`));
  console.log(
    `  servers' data: ${data} on ${dataFilesystem(data) ?? "an unknown filesystem"}; creating an empty file there: ${probe.toFixed(0)} us CPU (2,000 files)`,
  );
  for (const g of sizes) {
    console.log(`  ${g} rows per insert:`);
    const batches = Array.from({ length: inserts }, () => freshRows(g));
    const insertAll = (table: string) => async () => {
      for (const { rows } of batches) await shard.insertBinary(`${database}.${table}`, rows);
    };
    for (const table of ["calm_reports", "calm_reports_plain"]) {
      await shard.query(`TRUNCATE TABLE ${database}.${table}`);
      await shard.query(`SYSTEM STOP MERGES ${database}.${table}`);
      const seconds = await serverSeconds(idle, insertAll(table));
      await shard.query(`SYSTEM START MERGES ${database}.${table}`);
      await mergesDone(table);
      console.log(
        line(
          table === "calm_reports"
            ? "insert, rows and counts (2 parts), merges stopped"
            : "insert, rows only (1 part, no view), merges stopped",
          seconds,
          g,
        ),
      );
    }
    await shard.query(`TRUNCATE TABLE ${database}.calm_reports`);
    await shard.query(`TRUNCATE TABLE ${database}.calm_cell_counts`);
    const fresh = Array.from({ length: inserts }, () => freshRows(g));
    const merged = await serverSeconds(idle, async () => {
      for (const { rows } of fresh) await shard.insertBinary(`${database}.calm_reports`, rows);
      await mergesDone("calm_reports");
      await mergesDone("calm_cell_counts");
    });
    console.log(line("insert, rows and counts, merges running (until done)", merged, g));
    if (tableRows > 0) {
      const [[have]] = (await shard.query(`SELECT count() FROM ${database}.calm_reports`)) as [[string]];
      if (tableRows > Number(have))
        await shard.query(
          `INSERT INTO ${database}.calm_reports SELECT 1, generateUUIDv4(), toUInt32(number % 28),
           [toUInt32(number % 4)] FROM system.numbers LIMIT ${tableRows - Number(have)}`,
        );
      await mergesDone("calm_reports");
      console.log(`    (the round topped up to ${tableRows} rows on the shard for the lookups and checks)`);
    }
    const lookups = await serverSeconds(idle, async () => {
      for (const { ids } of batches)
        await shard.queryWithIds(
          `SELECT toString(report_id), count() FROM ${database}.calm_reports
           WHERE round_no = 1 AND report_id IN ids GROUP BY report_id`,
          { ids },
        );
    });
    console.log(line(`lookup of ${g} new ids (the writer's query (1))`, lookups, g));
    const checks = await serverSeconds(idle, async () => {
      for (const { ids } of fresh)
        await shard.queryWithIds(
          `SELECT toString(report_id) FROM ${database}.calm_reports
           WHERE round_no = 1 AND report_id IN done GROUP BY report_id HAVING count() > 1`,
          { done: ids },
        );
    });
    console.log(line(`check of ${g} inserted ids, every part read`, checks, g));
    const bare = await serverSeconds(idle, async () => {
      for (const { ids } of batches) await shard.queryWithIds("SELECT count() FROM ids", { ids });
    });
    console.log(line(`${g} ids as external data, no table read`, bare, g));
    console.log(
      `    a group's statements on the servers at ${g} rows per insert: ${(((merged + lookups + checks) / inserts / g) * 1e6).toFixed(1)} us per report (insert with merges, lookup, check)`,
    );
  }
} finally {
  shard.close();
  await backend.dispose();
}
