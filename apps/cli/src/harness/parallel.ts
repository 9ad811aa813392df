import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { DatasetInfo, LoadedDataset } from "@calm-ldp/datasets";
import {
  type ExperimentConfig,
  type ExperimentResult,
  type MethodRun,
  runExperiment,
  summarize,
  validateConfig,
} from "@calm-ldp/experiments";
import type { WorkerReply, WorkerSetup } from "./worker.js";

/** Options of {@link runExperimentParallel}. */
export interface ParallelOptions {
  population?: LoadedDataset;
  /** Worker threads (default: min(cores, reps); 1 runs in this thread). */
  workers?: number;
  onProgress?(done: number, total: number, message: string): void;
}

function spawn(setup: WorkerSetup): Worker {
  const here = import.meta.url;
  if (here.endsWith(".ts")) {
    return new Worker(new URL("./worker-boot.mjs", here), {
      workerData: { ...setup, entry: new URL("./worker.ts", here).href },
    });
  }
  return new Worker(new URL("./worker.js", here), { workerData: setup });
}

/**
 * Run an experiment with its repetitions spread over worker threads (one
 * repetition at a time per worker, handed out as workers free up). Results are
 * identical to `runExperiment` in one thread: every repetition's seeds derive from
 * the master seed and its index, not from which worker ran it. Runs are returned
 * in (rep, eps, method) order.
 */
export async function runExperimentParallel(
  config: ExperimentConfig,
  options: ParallelOptions = {},
): Promise<ExperimentResult> {
  validateConfig(config);
  const total = config.reps * config.eps.length * config.methods.length;
  const workers = Math.max(1, Math.min(options.workers ?? availableParallelism(), config.reps));
  if (workers === 1) {
    return runExperiment(config, {
      ...(options.population ? { population: options.population } : {}),
      onProgress: (p) => options.onProgress?.(p.done, p.total, p.message),
    });
  }
  const setup: WorkerSetup = { config, ...(options.population ? { population: options.population } : {}) };
  const runs: MethodRun[] = [];
  let dataset: DatasetInfo | undefined;
  let nextRep = 0;
  await new Promise<void>((resolve, reject) => {
    let active = 0;
    let failed = false;
    const pool: Worker[] = [];
    const stopAll = () => {
      for (const worker of pool) void worker.terminate();
    };
    const feed = (worker: Worker) => {
      if (nextRep < config.reps && !failed) {
        worker.postMessage({ rep: nextRep++ });
        return;
      }
      worker.postMessage({ stop: true });
      active--;
      if (active === 0 && !failed) resolve();
    };
    for (let w = 0; w < workers; w++) {
      const worker = spawn(setup);
      pool.push(worker);
      active++;
      worker.on("message", (reply: WorkerReply) => {
        if (reply.type === "run") {
          runs.push(reply.run);
          options.onProgress?.(
            runs.length,
            total,
            `rep ${reply.run.rep + 1}/${config.reps} ${reply.run.method} eps=${reply.run.eps}`,
          );
        } else if (reply.type === "done") {
          dataset ??= reply.dataset;
          feed(worker);
        } else {
          failed = true;
          stopAll();
          reject(new Error(`repetition ${reply.rep} failed: ${reply.message}`));
        }
      });
      worker.on("error", (error) => {
        failed = true;
        stopAll();
        reject(error);
      });
      feed(worker);
    }
  });
  const order = new Map(config.methods.map((m, i) => [m, i]));
  const epsOrder = new Map(config.eps.map((e, i) => [e, i]));
  runs.sort(
    (a, b) =>
      a.rep - b.rep ||
      epsOrder.get(a.eps)! - epsOrder.get(b.eps)! ||
      order.get(a.method)! - order.get(b.method)!,
  );
  return { config, dataset: dataset!, runs, results: summarize(runs) };
}
