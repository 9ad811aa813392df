import { join } from "node:path";
import { type ExperimentConfig, HARNESS_METHOD_IDS } from "@calm-ldp/experiments";
import type { Command } from "../cli-kit.js";
import { writeExperiment } from "../harness/outputs.js";
import { runExperimentParallel } from "../harness/parallel.js";
import { createProgress } from "../harness/progress.js";
import { summaryTable } from "../harness/table.js";

/** The methods the demo compares CALM with, where the registry has them. */
const DEMO_METHODS = ["calm", "fc", "am", "ft", "uni"];

interface DemoOptions {
  out: string;
  seed: number;
  reps: number;
}

export const demoCommand: Command = {
  name: "demo",
  summary:
    "The main job: a small, complete pipeline on synthetic data (CALM against the main baselines at a few eps): a table on stdout, SVG plots on disk.",
  options: {
    out: { type: "string", description: "directory for the JSON, CSV and SVG outputs", default: "out/demo" },
    seed: { type: "integer", description: "master seed", default: 1, min: 0 },
    reps: { type: "integer", description: "repetitions", default: 5, min: 1 },
  },
  async run(raw, context) {
    const options = raw as unknown as DemoOptions;
    const config: ExperimentConfig = {
      data: "synthetic:bn?strength=0.6&parents=2&seed=7",
      n: 2 ** 16,
      d: 8,
      k: 3,
      eps: [0.2, 0.6, 1, 1.4, 2],
      methods: DEMO_METHODS.filter((m) => HARNESS_METHOD_IDS.includes(m)),
      queries: 50,
      reps: options.reps,
      seed: options.seed,
      path: "counts",
    };
    if (!context.json) {
      context.log(
        `calm-ldp demo: ${config.methods.join(", ")} on ${config.data}, n = ${config.n}, d = ${config.d}, k = ${config.k}, eps = ${config.eps.join(", ")}, ${config.queries} random queries x ${config.reps} repetitions (count-level simulation, seed ${config.seed})`,
      );
    }
    const progress = createProgress(config.reps * config.eps.length * config.methods.length, "demo", 1000);
    const started = performance.now();
    const result = await runExperimentParallel(config, {
      onProgress: (done, _total, message) => progress.update(done, message),
    });
    progress.finish();
    const files = await writeExperiment(
      result,
      options.out,
      "demo",
      `CALM vs baselines, synthetic Bayesian network (n=${config.n}, d=${config.d}, k=${config.k})`,
    );
    return {
      config,
      dataset: result.dataset,
      results: result.results,
      seconds: (performance.now() - started) / 1000,
      files,
      plot: join(options.out, "demo-sse.svg"),
    };
  },
  text(result: {
    results: Parameters<typeof summaryTable>[0];
    seconds: number;
    files: { svg: string[]; json: string; csv: string };
  }) {
    return `${summaryTable(result.results)}\n\n${result.seconds.toFixed(1)} s. Wrote ${result.files.json}, ${result.files.csv}, ${result.files.svg.join(", ")}`;
  },
};
