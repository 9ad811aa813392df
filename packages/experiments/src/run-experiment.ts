import type { LoadedDataset } from "@calm-ldp/datasets";
import type { ExperimentConfig, ExperimentResult, MethodFactory, MethodRun, Progress } from "./api.js";
import { validateConfig } from "./config.js";
import { createDataSource } from "./data-source.js";
import { defaultMethodFactory } from "./methods.js";
import { runRepetition } from "./run-repetition.js";
import { summarize } from "./summarize.js";

/** Options of {@link runExperiment}. */
export interface RunExperimentOptions {
  /** The loaded population, for file data (see `createDataSource`). */
  population?: LoadedDataset;
  /** Method factory (default: calm and every baseline). */
  factory?: MethodFactory;
  /** Called after every method run. */
  onProgress?(progress: Progress): void;
  /** Return false to stop early (checked between method runs' repetitions); the result then holds what ran. */
  shouldContinue?(): boolean;
}

/**
 * Run an experiment in this thread: every repetition in turn (see
 * `runRepetition`), then the summary. Browser-safe; the CLI runs repetitions in
 * worker threads instead and calls `summarize` on the union. Cost: reps x |eps| x
 * |methods| method runs.
 */
export function runExperiment(
  config: ExperimentConfig,
  options: RunExperimentOptions = {},
): ExperimentResult {
  validateConfig(config);
  const source = createDataSource(config, options.population);
  const factory = options.factory ?? defaultMethodFactory;
  const total = config.reps * config.eps.length * config.methods.length;
  const runs: MethodRun[] = [];
  let datasetInfo: ExperimentResult["dataset"] | undefined;
  let done = 0;
  for (let rep = 0; rep < config.reps; rep++) {
    if (options.shouldContinue && !options.shouldContinue()) break;
    const tracked = {
      spec: source.spec,
      sample: (r: number, seed: number) => {
        const sample = source.sample(r, seed);
        datasetInfo ??= sample.info;
        return sample;
      },
    };
    const repRuns = runRepetition(config, tracked, rep, factory, {
      onRun: (run) => {
        done++;
        options.onProgress?.({
          done,
          total,
          message: `rep ${run.rep + 1}/${config.reps} ${run.method} eps=${run.eps}`,
        });
      },
    });
    runs.push(...repRuns);
  }
  return { config, dataset: datasetInfo!, runs, results: summarize(runs) };
}
