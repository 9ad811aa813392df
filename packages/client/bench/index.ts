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

/** Times `run` (`count` operations) and adds its row; `note` is read after the run. */
async function measure(
  what: string,
  plan: string,
  count: number,
  run: () => unknown,
  note: () => string = () => "",
): Promise<void> {
  const start = performance.now();
  await run();
  rows.push([what, plan, String(count), perSecond(count, performance.now() - start), note()]);
}

for (const name of ["grr", "oue"] as const) {
  const plan = plans[name]!;
  const rng = seededRng(1);
  const record = [1, 0, 1, 1, 0, 1];

  await measure("createReport (wire report, new id)", name, 200_000, () => {
    for (let i = 0; i < 200_000; i++) createReport(plan, record, { rng });
  });

  // The persistent reporter's sampling core, 10 rounds per user, without and with the instantaneous layer.
  for (const [what, core] of [
    ["reporter core (10 rounds per user)", reporterCore(plan, undefined)],
    ["reporter core, instantEps 1", reporterCore(plan, 1)],
  ] as const) {
    await measure(what, name, 1_000_000, () => {
      for (let u = 0; u < 100_000; u++) {
        const memo = {};
        const view = reporterView(core, null, undefined, rng);
        for (let r = 0; r < 10; r++) memoizedReport(core, view, record, memo, rng);
      }
    });
  }

  // One device, a year of daily rounds, every report acknowledged at once.
  const storage = memoryStorage();
  const reporter = await createReporter({ plan, storage, maxEps: 10, rng, send: async () => ({}) });
  await measure(
    "createReporter.report (state written, sent)",
    name,
    365,
    async () => {
      // Round ids shaped as a collector's (UUIDs, 36 characters; seeded here).
      for (let r = 0; r < 365; r++) await reporter.report(record, { round: createReportId(rng) });
    },
    () => {
      const state = [...storage.entries.values()][0]!.length;
      return `stored state after 365 rounds: ${state.toLocaleString("en-US")} bytes`;
    },
  );
}

printTable(["what", "plan", "count", "per second", "note"], rows, { left: [0, 1, 4] });
