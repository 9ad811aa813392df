/**
 * Collector benchmark on loopback (`--backend duckdb` (default), `postgres` or
 * `clickhouse` with `--shards 1|2`; `--collectors N` collector processes share the
 * store, else one collector runs in this process):
 * 1. sustained ingest: `--reports` simulated users (default 1,000,000) POSTed in
 *    batches of `--batch` (default 100) with `--concurrency` requests in flight
 *    (default 16) from a load-generator process whose bodies are built before the
 *    clock starts; after an untimed warm-up on the bare collector (the first
 *    `--warmup` reports, default 200,000, so neither run carries the JIT's
 *    warm-up), the same bodies go first to a bare collector in this process
 *    (same server stack, parsing and validation, stores nothing: `bareStorage`),
 *    then to the real one; prints reports/s of both, their ratio (target >= 50%),
 *    the CPU time per report of the collector, the load generator and (PostgreSQL
 *    on this machine) the database server in each run, and per-request latency
 *    percentiles (target >= 20,000 reports/s), and the store's group commits in
 *    this process during the timed run (how many, reports and milliseconds each);
 * 2. an 8-way marginal query on that round (target <= 200 ms): the HTTP answer,
 *    and its parts (SQL GROUP BY in DuckDB; estimation in JavaScript).
 * The round: d = 8 binary attributes, k = 8, eps = 1 (CALM plans l = 4, m = 70
 * OUE views of 16 cells at 1,000,000 reports: a report supports ~4.5 cells, which PostgreSQL adds to
 * per-group delta rows and DuckDB keeps as bits in the report's row).
 * `--grr` plans k = 3 instead (at 1,000,000 reports: l = 3, m = 56 GRR views of
 * 8 cells, one supported cell per report).
 * 3. the store's bytes on disk per stored report.
 * Run: `npx tsx bench/index.ts [--backend duckdb|postgres|clickhouse] [--shards 2] [--collectors 1]
 * [--reports 1000000] [--plan-n <reports>] [--batch 100] [--concurrency 16] [--grr] [--writers 2] [--pipeline 1] [--warmup 200000]
 * [--drop-key] [--crafted 0.01] [--separate-drops] [--ids random|time-ordered|round-time]` (`--crafted f`: the
 * per-report unary check on (as in protected mode, false-positive rate 1%) and every (1/f)-th report crafted
 * all-ones, so dropped: with batches of 100 and f = 0.01 every batch has a dropped report; `--separate-drops`, a
 * measurement of the path storages without `storeReportsAndDrops` take: the batch stored, then its drops counted
 * in a second write, not de-duplicated; `--ids`: the reports' ids, see bench/report-ids.ts:
 * "random" version 4, the client's default; "time-ordered" version 7, made in the order the bodies are sent
 * (opt-in in the client: it carries the device's clock); "round-time" version 7 with one time for the whole
 * round; `--random-ids` is `--ids random`); `--writers`: PostgreSQL's group commits in flight at once; `--pipeline`: ClickHouse's
 * group chains per shard (`openClickHouseStorage`'s `pipeline`, default 1); `--drop-key`, PostgreSQL, a
 * measurement only: the primary key of `calm_reports` is dropped before the load, so reports are not
 * de-duplicated (not exactly-once): what the store reaches without its key).
 */

import { fork } from "node:child_process";
import { readPlan } from "@calm-ldp/client";
import { Bench } from "tinybench";
import { estimateMarginal, startCollector } from "../src/index.js";
import { type CollectorProcess, spawnCollector, withoutMethod } from "../test/support.js";
import { type BackendName, benchBackend, cpuSecondsBetween, partLogText } from "./backends.js";
import { bareStorage } from "./bare-storage.js";
import { idKindLabel, reportIdKind } from "./report-ids.js";

function argument(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const reports = argument("reports", 1_000_000);
// The n the round is planned for (default --reports): keep 1,000,000 to send fewer reports with the same plan.
const planN = argument("plan-n", reports);
const batch = argument("batch", 100);
const concurrency = argument("concurrency", 16);
const warmup = argument("warmup", 200_000);
const grr = process.argv.includes("--grr");
const backendIndex = process.argv.indexOf("--backend");
const backendName = (backendIndex >= 0 ? process.argv[backendIndex + 1] : "duckdb") as BackendName;
if (!["duckdb", "postgres", "clickhouse"].includes(backendName))
  throw new Error(`--backend must be duckdb, postgres or clickhouse (got ${backendName})`);
const shards = argument("shards", 2);
const collectors = argument("collectors", 1);
if (backendName === "duckdb" && collectors > 1) throw new Error("DuckDB: one collector process per file");
const k = grr ? 3 : 8;
const TOKEN = "bench-admin-token-0123456789";
const data = "synthetic:bn?strength=0.5&parents=2&seed=1";

// PostgreSQL: group commits in flight at once (openPostgresStorage's `writers`, default 2).
const writersIndex = process.argv.indexOf("--writers");
const backend = await benchBackend(
  backendName,
  shards,
  writersIndex >= 0 ? { writers: Number(process.argv[writersIndex + 1]) } : {},
  process.argv.includes("--pipeline") ? { pipeline: argument("pipeline", 1) } : {},
);
const storage = await backend.open();
const dropKey = process.argv.includes("--drop-key");
const ids = reportIdKind();
if (dropKey && backendName !== "postgres") throw new Error("--drop-key: PostgreSQL only");
if (dropKey) await backend.sql("ALTER TABLE calm_reports DROP CONSTRAINT calm_reports_pkey");
// Group commits of the store in this process during the timed ingest (what a group holds, how long it takes).
// ClickHouse: also per shard, with the rows each group inserted.
const groups = { on: false, count: 0, reports: 0, seconds: 0 };
const shardGroups = new Map<number, { count: number; reports: number; rows: number; inserts: number }>();
storage.observeGroupCommits?.((group) => {
  if (!groups.on) return;
  groups.count++;
  groups.reports += group.size;
  groups.seconds += group.seconds;
  if (group.shard === undefined) return;
  const s = shardGroups.get(group.shard) ?? { count: 0, reports: 0, rows: 0, inserts: 0 };
  shardGroups.set(group.shard, s);
  s.count++;
  s.reports += group.size;
  s.rows += group.rows ?? 0;
  if ((group.rows ?? 0) > 0) s.inserts++;
});
// --crafted: the unary check on, every (1/f)-th report crafted (dropped); --separate-drops: the two-write path.
const crafted = argument("crafted", 0);
const check = crafted > 0 ? { unaryReportCheck: 0.01 } : {};
if (crafted > 0 && collectors > 1) throw new Error("--crafted: one collector (in this process)");
const separate = process.argv.includes("--separate-drops");
const ingestStorage = separate ? withoutMethod(storage, "storeReportsAndDrops") : storage;
const collector = await startCollector({ storage: ingestStorage, adminToken: TOKEN, ...check });
const bare = await startCollector({ storage: bareStorage(storage), adminToken: TOKEN, ...check });
// With --collectors N, N collector processes on the same store take the load (the one
// in this process only creates the round and answers queries).
const processes: CollectorProcess[] = [];
if (collectors > 1) {
  process.env.CALM_LDP_ADMIN_TOKEN = TOKEN;
  for (let i = 0; i < collectors; i++)
    processes.push(await spawnCollector(backendName as "postgres" | "clickhouse", backend.location));
}
const ingestUrls = processes.length > 0 ? processes.map((p) => p.url) : [collector.url];
const admin = { authorization: `Bearer ${TOKEN}` };
const attributes = Array.from({ length: 8 }, (_, i) => ({ name: `x${i}`, cardinality: 2 }));
const created = (await (
  await fetch(`${collector.url}/v1/rounds`, {
    method: "POST",
    headers: { ...admin, "content-type": "application/json" },
    body: JSON.stringify({ schema: { attributes }, eps: 1, k, n: planN }),
  })
).json()) as { round: string; plan: unknown };
const plan = readPlan(created.plan);
const oracles = [...new Set(plan.views.map((v) => `${v.oracle} (${v.cells} cells)`))].join(", ");
console.log(
  `collector benchmark (${backend.description}${dropKey ? " WITHOUT its key: not de-duplicated, a measurement only" : ""}${crafted > 0 ? `, unary check on, 1 report in ${Math.round(1 / crafted)} crafted (dropped), drops counted ${separate ? "in a second write (--separate-drops)" : "in the batch's transaction where the storage can"}` : ""}, ${idKindLabel(ids)}, ${ingestUrls.length} collector process${ingestUrls.length > 1 ? "es" : ""}, loopback, Node ${process.version}): ${reports} reports in batches of ${batch}, ${concurrency} in flight; round d = 8, k = ${k}, eps = 1: l = ${plan.l}, m = ${plan.m}, ${oracles}`,
);
if (backend.dataOn !== undefined) console.log(`  servers' data on ${backend.dataOn}`);

// 1. Sustained ingest.
const worker = fork(new URL("./load-worker.ts", import.meta.url), { execArgv: ["--import", "tsx"] });
const message = <T>() =>
  new Promise<T>((resolve, reject) => {
    worker.once("message", (m) => resolve(m as T));
    worker.once("error", reject);
  });
worker.send({
  urls: ingestUrls,
  round: created.round,
  plan,
  reports,
  batch,
  concurrency,
  seed: 1,
  data,
  ids,
  roundTime: Date.now(),
  craftedEvery: crafted > 0 ? Math.round(1 / crafted) : 0,
});
const ready = await message<{ requests: number; bytes: number }>();
console.log(
  `  load generator ready: ${ready.requests} requests, ${(ready.bytes / ready.requests).toFixed(0)} bytes each`,
);
// Also the CPU time of this process (the collector's event loop, and DuckDB's threads) per report.
// And the load generator's and (PostgreSQL on this machine) the database server's CPU time.
const run = async (urls: string[], requests?: number) => {
  const finished = message<{ seconds: number; failed: number; latencies: number[]; cpuMicros: number }>();
  const server = await backend.serverCpuSeconds();
  const cpu = process.cpuUsage();
  const switches = process.resourceUsage();
  worker.send({ urls, requests });
  const result = await finished;
  const used = process.cpuUsage(cpu);
  const switchesAfter = process.resourceUsage();
  const serverAfter = await backend.serverCpuSeconds();
  return {
    ...result,
    loaderCpuMicros: result.cpuMicros,
    cpuMicros: used.user + used.system,
    systemMicros: used.system,
    voluntarySwitches: switchesAfter.voluntaryContextSwitches - switches.voluntaryContextSwitches,
    involuntarySwitches: switchesAfter.involuntaryContextSwitches - switches.involuntaryContextSwitches,
    serverCpuMicros:
      server === undefined || serverAfter === undefined
        ? undefined
        : cpuSecondsBetween(server, serverAfter) * 1e6,
  };
};
const cpuLine = (r: Awaited<ReturnType<typeof run>>) =>
  `CPU per report: collector ${(r.cpuMicros / reports).toFixed(1)} us (${(r.systemMicros / reports).toFixed(1)} of it in the kernel), load generator ${(r.loaderCpuMicros / reports).toFixed(1)} us${r.serverCpuMicros === undefined ? "" : `, database server ${(r.serverCpuMicros / reports).toFixed(1)} us`}; ${((r.cpuMicros + r.loaderCpuMicros + (r.serverCpuMicros ?? 0)) / 1e6 / r.seconds).toFixed(2)} cores busy; the collector's process switched out ${((r.voluntarySwitches + r.involuntarySwitches) / (reports / batch)).toFixed(1)} times per request (${(r.involuntarySwitches / (reports / batch)).toFixed(1)} of them preempted)`;
// An untimed warm-up on the bare handler (the JIT of the collector and of the load
// generator), then the bare ceiling (same bodies, same round, stores nothing), then the real store.
if (warmup > 0) {
  const requests = Math.ceil(Math.min(warmup, reports) / batch);
  const warm = await run([bare.url], requests);
  console.log(
    `  warm-up on the bare handler, not counted: ${requests} requests (${((requests * batch) / warm.seconds).toFixed(0)} reports/s)`,
  );
}
const ceiling = await run([bare.url]);
groups.on = true;
const done = await run(ingestUrls);
groups.on = false;
worker.disconnect();
const sorted = Float64Array.from(done.latencies).sort();
const percentile = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const status = (await (
  await fetch(`${collector.url}/v1/rounds/${created.round}/status`, { headers: admin })
).json()) as {
  accepted: number;
  unaryDropped?: { reports: number };
};
if (status.unaryDropped) console.log(`  dropped by the unary check: ${status.unaryDropped.reports}`);
const bareRate = reports / ceiling.seconds;
const rate = reports / done.seconds;
console.log(
  `  bare handler (parse + validate, store nothing): ${bareRate.toFixed(0)} reports/s (${ceiling.seconds.toFixed(2)} s, ${ceiling.failed} failed requests; collector CPU ${(ceiling.cpuMicros / reports).toFixed(1)} us/report)`,
);
console.log(
  `  ingest (${backend.description}): ${rate.toFixed(0)} reports/s sustained (${done.seconds.toFixed(2)} s, ${done.failed} failed requests, ${status.accepted} counted; collector CPU ${(done.cpuMicros / reports).toFixed(1)} us/report${processes.length > 0 ? " in this process only" : ""}): ${((100 * rate) / bareRate).toFixed(0)}% of bare`,
);
console.log(`    bare: ${cpuLine(ceiling)}`);
console.log(`    ${backend.description}: ${cpuLine(done)}`);
if (groups.count > 0)
  console.log(
    `  group commits in this process: ${groups.count} (${(groups.reports / groups.count).toFixed(0)} reports each on average, ${((1000 * groups.seconds) / groups.count).toFixed(1)} ms each from start to answer)`,
  );
for (const [shard, s] of [...shardGroups].sort((a, b) => a[0] - b[0]))
  console.log(
    `    shard ${shard + 1}: ${s.count} group commits (${(s.reports / s.count).toFixed(0)} reports each), ${s.inserts} inserts of ${(s.rows / Math.max(1, s.inserts)).toFixed(0)} rows each`,
  );
console.log(
  `  latency per request of ${batch}: p50 ${percentile(50).toFixed(1)} ms, p90 ${percentile(90).toFixed(1)} ms, p99 ${percentile(99).toFixed(1)} ms, max ${sorted[sorted.length - 1]!.toFixed(1)} ms`,
);
const partLog = await backend.partLog?.();
if (partLog) for (const line of partLog) console.log(`  part_log, ${partLogText(line)}`);
else if (backend.partLog) console.log("  (no system.part_log on the servers: merges not measured)");
for (const p of processes) await p.kill("SIGTERM");
const bytes = await backend.bytes();
console.log(
  `  ${backendName === "duckdb" ? "database file + write-ahead log" : "tables on disk"}: ${(bytes / 2 ** 20).toFixed(0)} MiB, ${(bytes / status.accepted).toFixed(1)} bytes per report`,
);

// 2. The 8-way marginal query.
const query = attributes.map((a) => a.name).join(",");
const round = (await storage.findRound(created.round))!;
const counts = await storage.supportCounts(round);
let checksum = 0;
const bench = new Bench({ iterations: 30, warmupIterations: 3, time: 0 });
bench
  .add("8-way marginal over HTTP (SQL + estimate + answer)", async () => {
    const answer = (await (
      await fetch(`${collector.url}/v1/rounds/${created.round}/marginals?attrs=${query}`, { headers: admin })
    ).json()) as { cells: number[] };
    checksum += answer.cells[0]!;
  })
  .add(`  SQL GROUP BY view / view, cell (${backend.description})`, async () => {
    checksum += (await storage.supportCounts(round)).reportsPerView[0]!;
  })
  .add("  estimate + post-process + 8-way answer (JS)", () => {
    checksum += estimateMarginal(round.plan, counts, [0, 1, 2, 3, 4, 5, 6, 7]).table.cells[0]!;
  });
await bench.run();
for (const task of bench.tasks) {
  const r = task.result as
    | { latency?: { p50?: number; p75?: number; min?: number; max?: number } }
    | undefined;
  const latency = r?.latency;
  console.log(
    `  ${task.name.padEnd(52)} median ${latency?.p50?.toFixed(1)} ms (min ${latency?.min?.toFixed(1)}, p75 ${latency?.p75?.toFixed(1)}, max ${latency?.max?.toFixed(1)}; 30 runs)`,
  );
}
console.log(`  (checksum ${checksum.toFixed(6)})`);
await bare.close();
await collector.close();
await backend.dispose();
