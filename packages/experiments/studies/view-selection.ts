/**
 * Balanced vs random choice of CALM's views (../../../docs/algorithms.md#choosing-the-view-size-and-the-number-of-views: when m < C(d, l)
 * the paper does not say which l-subsets are taken). Runs CALM with each choice on
 * the same samples and queries (the experiment harness, count-level simulation)
 * and reports mean SSE of random k-way queries.
 *
 * Run: `pnpm exec tsx --tsconfig packages/experiments/tsconfig.json packages/experiments/studies/view-selection.ts [--reps 10]`
 */
import { existsSync } from "node:fs";
import { createCalmProtocol } from "@calm-ldp/calm-core";
import { loadDataset } from "@calm-ldp/datasets/node";
import { type ExperimentConfig, type HarnessMethod, runExperiment } from "@calm-ldp/experiments";

const args = process.argv.slice(2);
const at = args.indexOf("--reps");
const REPS = at >= 0 ? Number(args[at + 1]) : 10;
const NLTCS = new URL("../../../../shared/datasets/nltcs/nltcs.csv", import.meta.url).pathname;

const factory = (id: string): HarnessMethod =>
  createCalmProtocol({ selection: id === "calm-random" ? "random" : "balanced" });

/** The study's setting on one data source: n = 2^16, d = 16, k = 3, 50 queries, both view choices. */
const study = (data: string, seed: number): ExperimentConfig => ({
  data,
  n: 2 ** 16,
  d: 16,
  k: 3,
  eps: [0.2, 0.6, 1, 1.4, 2],
  methods: ["calm-balanced", "calm-random"],
  queries: 50,
  reps: REPS,
  seed,
});

const settings: Array<{
  name: string;
  config: ExperimentConfig;
  population?: Awaited<ReturnType<typeof loadDataset>>;
}> = [{ name: "synthetic BN, d = 16", config: study("synthetic:bn?strength=0.6&parents=2&seed=7", 11) }];
if (existsSync(NLTCS)) {
  settings.push({
    name: "NLTCS, d = 16",
    config: study(`nltcs:${NLTCS}`, 12),
    population: await loadDataset(`nltcs:${NLTCS}`, { d: 16 }),
  });
} else console.error(`nltcs: absent (${NLTCS}), skipped`);

console.log(
  `CALM view choice, balanced vs random: n = 2^16, k = 3, 50 random queries x ${REPS} reps, count-level simulation\n`,
);
console.log("| data | eps | l | m | SSE balanced (sd) | SSE random (sd) | random / balanced |");
console.log("|---|---:|---:|---:|---:|---:|---:|");
for (const { name, config, population } of settings) {
  const result = runExperiment(config, { factory, ...(population ? { population } : {}) });
  for (const eps of config.eps) {
    const b = result.results.find((r) => r.method === "calm-balanced" && r.eps === eps)!;
    const r = result.results.find((x) => x.method === "calm-random" && x.eps === eps)!;
    const details = result.runs.find((run) => run.method === "calm-balanced" && run.eps === eps)!.details!;
    console.log(
      `| ${name} | ${eps} | ${details.l} | ${details.m} | ${b.sseMean.toExponential(3)} (${b.sseStd.toExponential(1)}) | ${r.sseMean.toExponential(3)} (${r.sseStd.toExponential(1)}) | ${(r.sseMean / b.sseMean).toFixed(3)} |`,
    );
  }
}
