/**
 * Storage-only ingest, no HTTP: `--reports` (default 400,000) seeded reports of
 * the collector benchmark's round (d = 8 binary attributes, k = 8, eps = 1,
 * planned for n = 1,000,000: 70 OUE views of 16 cells), validated as the server
 * does, go straight to `storeReports` in batches of `--batch` (100) with
 * `--concurrency` (16) batches in flight, `--reps` times (default 2) into the
 * same round (the key grows as in the HTTP benchmark). Prints per repetition and
 * in all: reports/s, and the CPU time per report of this process (the storage's
 * JavaScript, the driver, and DuckDB's threads) and of the database server
 * (PostgreSQL on this machine: its postmaster's process tree, see
 * `BenchBackend.serverCpuSeconds`). CPU per report is the steadier figure on a
 * shared machine. `--drop-key` (PostgreSQL, a measurement only) drops the primary
 * key of `calm_reports` before storing: no de-duplication, so not exactly-once;
 * it shows what the key costs. `--ids random|time-ordered|round-time`: the
 * reports' ids (bench/report-ids.ts; default random version 4, the client's).
 * Run: `npx tsx bench/store-cpu.ts --backend postgres [--writers 2] [--drop-key] [--ids time-ordered]`.
 */
import { createReport } from "@calm-ldp/client";
import { seededRng } from "@calm-ldp/random";
import { type AcceptedReport, planRound, validateBatch } from "../src/index.js";
import { type BackendName, benchBackend, cpuSecondsBetween } from "./backends.js";
import { benchReportId, idKindLabel, reportIdKind } from "./report-ids.js";

const argument = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const n = argument("reports", 400_000);
const batch = argument("batch", 100);
const concurrency = argument("concurrency", 16);
const reps = argument("reps", 2);
const backendIndex = process.argv.indexOf("--backend");
const backendName = (backendIndex >= 0 ? process.argv[backendIndex + 1] : "postgres") as BackendName;
if (!["duckdb", "postgres", "clickhouse"].includes(backendName))
  throw new Error(`--backend must be duckdb, postgres or clickhouse (got ${backendName})`);
const dropKey = process.argv.includes("--drop-key");
if (dropKey && backendName !== "postgres") throw new Error("--drop-key: PostgreSQL only");
const writersIndex = process.argv.indexOf("--writers");
const backend = await benchBackend(
  backendName,
  2,
  writersIndex >= 0 ? { writers: Number(process.argv[writersIndex + 1]) } : {},
);
const storage = await backend.open();
if (dropKey) await backend.sql("ALTER TABLE calm_reports DROP CONSTRAINT calm_reports_pkey");
const attributes = Array.from({ length: 8 }, (_, i) => ({ name: `x${i}`, cardinality: 2 }));
const round = await storage.createRound(planRound({ schema: { attributes }, eps: 1, k: 8, n: 1_000_000 }));
const rng = seededRng(1);
const ids = reportIdKind();

/** `n` validated reports of uniform binary records in batches (untimed). */
function batches(): AcceptedReport[][] {
  const out: AcceptedReport[][] = [];
  for (let from = 0; from < n; from += batch) {
    const wire = Array.from({ length: Math.min(batch, n - from) }, () =>
      createReport(
        round.plan,
        Array.from({ length: attributes.length }, () => rng.nextUint32() & 1),
        { rng, id: benchReportId(ids, rng, Date.parse(round.createdAt)) },
      ),
    );
    out.push(validateBatch(round.id, round.plan, { round: round.id, reports: wire }));
  }
  return out;
}

const line = (what: string, reports: number, seconds: number, cpuMicros: number, serverMicros?: number) =>
  `${what}: ${reports} reports in ${seconds.toFixed(2)} s = ${(reports / seconds).toFixed(0)} reports/s; CPU per report: this process ${(cpuMicros / reports).toFixed(2)} us${serverMicros === undefined ? "" : `, database server ${(serverMicros / reports).toFixed(2)} us`}`;

console.log(
  `storage-only ingest (${backend.description}${dropKey ? ", key dropped: NOT de-duplicated" : ""}): batches of ${batch}, ${concurrency} in flight, ${idKindLabel(ids)}`,
);
let total = { seconds: 0, cpu: 0, server: 0 as number | undefined };
for (let rep = 0; rep < reps; rep++) {
  const todo = batches();
  const serverBefore = await backend.serverCpuSeconds();
  const cpu = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < todo.length) await storage.storeReports(round, todo[next++]!);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const serverAfter = await backend.serverCpuSeconds();
  const server =
    serverBefore === undefined || serverAfter === undefined
      ? undefined
      : cpuSecondsBetween(serverBefore, serverAfter) * 1e6;
  console.log(line(`  repetition ${rep + 1}`, n, seconds, used.user + used.system, server));
  total = {
    seconds: total.seconds + seconds,
    cpu: total.cpu + used.user + used.system,
    server: total.server === undefined || server === undefined ? undefined : total.server + server,
  };
}
console.log(line("  all", reps * n, total.seconds, total.cpu, total.server));
await storage.close();
await backend.dispose();
