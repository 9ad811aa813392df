import { parentPort, workerData } from "node:worker_threads";
import type { LoadedDataset } from "@calm-ldp/datasets";
import {
  createDataSource,
  defaultMethodFactory,
  type ExperimentConfig,
  runRepetition,
} from "@calm-ldp/experiments";

/** What the parent sends once: the experiment and, for file data, the loaded population. */
export interface WorkerSetup {
  config: ExperimentConfig;
  population?: LoadedDataset;
}

/** Parent -> worker: run one repetition; worker -> parent: each method run, then the repetition's end. */
export type WorkerRequest = { rep: number } | { stop: true };
export type WorkerReply =
  | { type: "run"; run: import("@calm-ldp/experiments").MethodRun }
  | { type: "done"; rep: number; dataset: import("@calm-ldp/datasets").DatasetInfo }
  | { type: "error"; rep: number; message: string };

const setup = workerData as WorkerSetup;
const source = createDataSource(setup.config, setup.population);
const port = parentPort!;

port.on("message", (request: WorkerRequest) => {
  if ("stop" in request) {
    port.close();
    return;
  }
  const { rep } = request;
  try {
    let dataset: import("@calm-ldp/datasets").DatasetInfo | undefined;
    runRepetition(
      setup.config,
      {
        spec: source.spec,
        sample: (r, seed) => {
          const sample = source.sample(r, seed);
          dataset = sample.info;
          return sample;
        },
      },
      rep,
      defaultMethodFactory,
      { onRun: (run) => port.postMessage({ type: "run", run } satisfies WorkerReply) },
    );
    port.postMessage({ type: "done", rep, dataset: dataset! } satisfies WorkerReply);
  } catch (error) {
    port.postMessage({
      type: "error",
      rep,
      message: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    } satisfies WorkerReply);
  }
});
