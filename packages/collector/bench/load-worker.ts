/**
 * Load generator of the collector benchmark, in its own process (forked with
 * IPC; the job arrives as the first message): builds every
 * request body first (perturbation with @calm-ldp/client, untimed), then sends
 * them over keep-alive HTTP with `concurrency` requests in flight and records
 * each request's latency and its own CPU time; once per "go" message (a warm-up
 * on the bare handler, the bare handler's run, then the store's), until the
 * parent disconnects. A "go" with `requests` sends only the first that many bodies.
 */
import type { CalmPlan } from "@calm-ldp/calm-core";
import { createReport } from "@calm-ldp/client";
import { generateFromSpec } from "@calm-ldp/datasets";
import { seededRng } from "@calm-ldp/random";
import { allOnesBits } from "../test/support.js";
import { type BenchIdKind, benchReportId } from "./report-ids.js";

interface LoadJob {
  /** Collector base URLs: request i goes to urls[i mod urls.length]. */
  urls: string[];
  round: string;
  plan: CalmPlan;
  reports: number;
  batch: number;
  concurrency: number;
  seed: number;
  data: string;
  /** Every `craftedEvery`-th report (0: none) made all-ones (a unary report the unary check drops). */
  craftedEvery: number;
  /** Report ids (see `BenchIdKind`), and the round's time in ms for "round-time". */
  ids: BenchIdKind;
  roundTime: number;
}

const job = await new Promise<LoadJob>((resolve) => process.once("message", (m) => resolve(m as LoadJob)));
const { store } = generateFromSpec(job.data, {
  n: job.reports,
  d: job.plan.schema.attributes.length,
  seed: job.seed,
});
const rng = seededRng(job.seed, 9);
const bodies: string[] = [];
const record = new Array<number>(store.columns.length);
for (let start = 0; start < job.reports; start += job.batch) {
  const reports = [];
  for (let r = start; r < Math.min(job.reports, start + job.batch); r++) {
    for (let a = 0; a < record.length; a++) record[a] = store.columns[a]![r]!;
    const report = createReport(job.plan, record, { rng, id: benchReportId(job.ids, rng, job.roundTime) });
    const crafted = job.craftedEvery > 0 && r % job.craftedEvery === 0 && report.bits !== undefined;
    reports.push(crafted ? { ...report, bits: allOnesBits(job.plan.views[report.view]!.cells) } : report);
  }
  bodies.push(JSON.stringify({ round: job.round, reports }));
}
process.send!({ kind: "ready", requests: bodies.length, bytes: bodies.reduce((s, b) => s + b.length, 0) });

// Each "go" message runs the same bodies once against its collectors (`{urls}`, default the job's),
// or only the first `requests` of them.
process.on("disconnect", () => process.exit(0));
process.on("message", async (go: { urls?: string[]; requests?: number }) => {
  const count = Math.min(bodies.length, go.requests ?? bodies.length);
  const latencies = new Float64Array(count);
  const urls = (go.urls ?? job.urls).map((url) => `${url}/v1/rounds/${job.round}/reports`);
  let next = 0;
  let failed = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const sender = async () => {
    while (next < count) {
      const i = next++;
      const t = performance.now();
      const response = await fetch(urls[i % urls.length]!, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: bodies[i]!,
      });
      await response.arrayBuffer();
      if (!response.ok) failed++;
      latencies[i] = performance.now() - t;
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, sender));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  process.send!({
    kind: "done",
    seconds,
    failed,
    latencies: Array.from(latencies),
    cpuMicros: used.user + used.system,
  });
});
