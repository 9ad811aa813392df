/**
 * What one Prometheus scrape of `GET /metrics` costs: a collector in this
 * process (`--backend duckdb` (default), `postgres` or `clickhouse`) with 10, then 100 rounds
 * (each with 200 stored reports and a few refused batches, so every labelled
 * series exists), then
 * 1. `GET /metrics` over loopback HTTP (a scrape never waits for the storage:
 *    the round gauges are refreshed in the background at most every
 *    ROUND_GAUGES_TTL_MS = 5 s);
 * 2. the same exposition with the round gauges read at every scrape
 *    (`CollectorMetrics` with a TTL of 0: the storage's `roundTotals`, one
 *    statement), i.e. the storage work done every 5 s.
 * Prints the median and p90 milliseconds per scrape over 200 scrapes and the
 * exposition's bytes. Run: `flock /tmp/calm-bench.lock npx tsx bench/metrics.ts [--backend postgres|clickhouse]`.
 */
import { createReport, readPlan } from "@calm-ldp/client";
import { seededRng } from "@calm-ldp/random";
import { CollectorMetrics, startCollector } from "../src/index.js";
import { type BackendName, benchBackend } from "./backends.js";

const TOKEN = "bench-admin-token-0123456789abcdef";
const SCRAPES = 200;

/** Median and 90th percentile of `samples` (ms). */
function summary(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return `median ${at(0.5).toFixed(3)} ms, p90 ${at(0.9).toFixed(3)} ms`;
}

async function timed(scrape: () => Promise<string>): Promise<{ samples: number[]; bytes: number }> {
  let bytes = 0;
  for (let i = 0; i < 20; i++) await scrape(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < SCRAPES; i++) {
    const start = performance.now();
    bytes = (await scrape()).length;
    samples.push(performance.now() - start);
  }
  return { samples, bytes };
}

const name = (process.argv[process.argv.indexOf("--backend") + 1] ?? "duckdb") as BackendName;
const backend = await benchBackend(process.argv.includes("--backend") ? name : "duckdb", 1);
const storage = await backend.open();
const collector = await startCollector({ storage, adminToken: TOKEN });
try {
  const admin = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
  const rng = seededRng(7);
  const attributes = Array.from({ length: 4 }, (_, i) => ({ name: `b${i}`, labels: ["0", "1"] }));
  let made = 0;
  for (const rounds of [10, 100]) {
    for (; made < rounds; made++) {
      const created = (await (
        await fetch(`${collector.url}/v1/rounds`, {
          method: "POST",
          headers: admin,
          body: JSON.stringify({ schema: { attributes }, eps: 1, k: 2, n: 1000 }),
        })
      ).json()) as { round: string; plan: unknown };
      const plan = readPlan(created.plan);
      const reports = Array.from({ length: 200 }, () => createReport(plan, [0, 1, 0, 1], { rng }));
      const post = (body: unknown) =>
        fetch(`${collector.url}/v1/rounds/${created.round}/reports`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      await post({ round: created.round, reports });
      await post({ round: created.round, reports: [{ ...reports[0], view: 9999 }] });
      await post({ round: "x", reports: 1 });
    }
    const cached = await timed(async () => (await fetch(`${collector.url}/metrics`)).text());
    const fresh = new CollectorMetrics(storage, () => true, 0);
    const recomputed = await timed(async () => (await fresh.scrape()).body);
    console.log(
      `${backend.description}, ${rounds} rounds (${rounds * 200} report ids held): GET /metrics ${summary(cached.samples)}, ${cached.bytes} bytes; ` +
        `with the round gauges read (every 5 s) ${summary(recomputed.samples)}`,
    );
  }
} finally {
  await collector.close();
  await backend.dispose();
}
