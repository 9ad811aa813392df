import { type ExperimentConfig, HARNESS_METHOD_IDS } from "@calm-ldp/experiments";
import type { Command } from "../cli-kit.js";
import { loadPopulation } from "../harness/load.js";
import { writeExperiment } from "../harness/outputs.js";
import { runExperimentParallel } from "../harness/parallel.js";
import { createProgress } from "../harness/progress.js";
import { summaryTable } from "../harness/table.js";

interface RunOptions {
  data: string;
  n: number;
  d: number;
  k: number;
  eps: number[];
  methods: string[];
  queries: string;
  reps: number;
  seed: number;
  out?: string;
  cardinality?: number;
  path: "counts" | "per-user";
  workers?: number;
  interval?: number;
}

/** Parse `--queries`: a positive integer or "all". */
export function parseQueries(text: string): number | "all" {
  if (text === "all") return "all";
  const q = Number(text);
  if (!Number.isSafeInteger(q) || q < 1)
    throw new Error(`run: --queries must be an integer >= 1 or "all" (got ${JSON.stringify(text)})`);
  return q;
}

export const runCommand: Command = {
  name: "run",
  summary:
    "Run methods x eps x repetitions on one dataset; print SSE/TVD/time per method and eps; write JSON, CSV and SVG with --out.",
  options: {
    data: {
      type: "string",
      description:
        "dataset spec: synthetic:iid?p=0.3, synthetic:bn?strength=..&parents=..&cardinality=..&seed=.., adult:<dir>, nltcs:<file>, transactions:<file>, msnbc:<file>, csv:<file>",
      default: "synthetic:bn?strength=0.5&parents=2&seed=1",
    },
    n: { type: "integer", description: "users per repetition", default: 65536, min: 1 },
    d: {
      type: "integer",
      description: "attributes (first d; transactions: most frequent items)",
      default: 8,
      min: 1,
    },
    k: { type: "integer", description: "query size (k-way marginals)", default: 3, min: 1 },
    eps: {
      type: "numbers",
      description: "privacy budgets, comma-separated",
      default: [0.5, 1, 2],
      min: 1e-9,
    },
    methods: {
      type: "strings",
      description: `method ids, comma-separated (${HARNESS_METHOD_IDS.join(", ")})`,
      default: ["calm"],
      choices: HARNESS_METHOD_IDS,
    },
    queries: { type: "string", description: 'random k-way queries per repetition, or "all"', default: "50" },
    reps: { type: "integer", description: "repetitions", default: 5, min: 1 },
    seed: { type: "integer", description: "master seed", default: 1, min: 0 },
    out: { type: "string", description: "directory for run.json, run.csv, run-runs.csv and SVG plots" },
    cardinality: { type: "integer", description: "cap on categories per attribute", min: 2 },
    path: {
      type: "string",
      description: "count-level simulation or every user perturbed",
      choices: ["counts", "per-user"],
      default: "counts",
    },
    workers: { type: "integer", description: "worker threads (default: min(cores, reps))", min: 1 },
    interval: {
      type: "number",
      description:
        "confidence level (e.g. 0.95): per-method interval coverage and mean width (methods with intervals: calm, inpht, ft, am, margrr, margps)",
      min: 1e-9,
      max: 0.999999,
    },
  },
  async run(raw, context) {
    const options = raw as unknown as RunOptions;
    const config: ExperimentConfig = {
      data: options.data,
      n: options.n,
      d: options.d,
      k: options.k,
      ...(options.cardinality !== undefined ? { c: options.cardinality } : {}),
      eps: options.eps,
      methods: options.methods,
      queries: parseQueries(options.queries),
      reps: options.reps,
      seed: options.seed,
      path: options.path,
      ...(options.interval !== undefined ? { interval: options.interval } : {}),
    };
    const population = await loadPopulation(config.data, config.d, config.c);
    const progress = createProgress(config.reps * config.eps.length * config.methods.length, "run");
    const started = performance.now();
    const result = await runExperimentParallel(config, {
      ...(population ? { population } : {}),
      ...(options.workers ? { workers: options.workers } : {}),
      onProgress: (done, _total, message) => progress.update(done, message),
    });
    progress.finish();
    const seconds = (performance.now() - started) / 1000;
    const files = options.out
      ? await writeExperiment(
          result,
          options.out,
          "run",
          `${config.data} (n=${config.n}, d=${config.d}, k=${config.k})`,
        )
      : undefined;
    if (!context.json && result.dataset.sampling?.withReplacement) {
      context.log(
        `note: n = ${config.n} exceeds the ${result.dataset.sampling.population} rows: users sampled with replacement`,
      );
    }
    return {
      config,
      dataset: result.dataset,
      results: result.results,
      seconds,
      ...(files ? { files } : {}),
    };
  },
  text(result: { results: Parameters<typeof summaryTable>[0]; seconds: number; files?: { svg: string[] } }) {
    return `${summaryTable(result.results)}\n\n${result.seconds.toFixed(1)} s${result.files ? `; plots: ${result.files.svg.join(", ")}` : ""}`;
  },
};
