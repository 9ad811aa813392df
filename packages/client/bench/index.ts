/**
 * Client benchmarks (`pnpm --filter @calm-ldp/client bench`, or `npx tsx bench/index.ts`):
 * throughput of `createReport`, of the persistent reporter's sampling core, and of
 * whole `createReporter.report` calls (state written to memory storage each time),
 * and the size of a reporter's stored state after a year of daily rounds (UUID round ids).
 * Prints a table; seeded, so sizes are reproducible (times are not).
 */
import { perSecond, printTable } from "@calm-ldp/bench-support";
import { seededRng } from "@calm-ldp/random";
import { createReport } from "../src/create-report.js";
import { createReporter } from "../src/create-reporter.js";
import { createReportId } from "../src/report-id.js";
import { memoizedReport, reporterCore, reporterView } from "../src/reporter-core.js";
import { memoryStorage } from "../src/storage.js";
import { wireKindPlans } from "../src/testing.js";

const plans = wireKindPlans();
const rows: string[][] = [];

for (const name of ["grr", "oue"] as const) {
  const plan = plans[name]!;
  const rng = seededRng(1);
  const record = [1, 0, 1, 1, 0, 1];

  let count = 200_000;
  let t = performance.now();
  for (let i = 0; i < count; i++) createReport(plan, record, { rng });
  rows.push([
    "createReport (wire report, new id)",
    name,
    String(count),
    perSecond(count, performance.now() - t),
    "",
  ]);

  // The sampling core alone: `count` reports, 10 rounds per user (a fresh view and memo per user).
  count = 1_000_000;
  for (const [label, instantEps] of [
    ["reporter core (10 rounds per user)", undefined],
    ["reporter core, instantEps 1", 1],
  ] as const) {
    const core = reporterCore(plan, instantEps);
    t = performance.now();
    for (let u = 0; u < count / 10; u++) {
      const memo = {};
      const view = reporterView(core, null, undefined, rng);
      for (let r = 0; r < 10; r++) memoizedReport(core, view, record, memo, rng);
    }
    rows.push([label, name, String(count), perSecond(count, performance.now() - t), ""]);
  }

  // One device, a year of daily rounds, every report acknowledged at once.
  const storage = memoryStorage();
  const reporter = await createReporter({ plan, storage, maxEps: 10, rng, send: async () => ({}) });
  count = 365;
  t = performance.now();
  // Round ids shaped as a collector's (UUIDs, 36 characters; seeded here).
  for (let r = 0; r < count; r++) await reporter.report(record, { round: createReportId(rng) });
  const state = [...storage.entries.values()][0]!.length;
  rows.push([
    "createReporter.report (state written, sent)",
    name,
    String(count),
    perSecond(count, performance.now() - t),
    `stored state after ${count} rounds: ${state.toLocaleString("en-US")} bytes`,
  ]);
}

printTable(["what", "plan", "count", "per second", "note"], rows, { left: [0, 1, 4] });
