import type { CalmPlan } from "@calm-ldp/calm-core";
import type { LoadedDataset } from "@calm-ldp/datasets";
import {
  createDataSource,
  type DataSource,
  defaultMethodFactory,
  type MethodFactory,
  runRepetition,
  validateConfig,
} from "@calm-ldp/experiments";
import { contingencyTable, type MarginalSynopsis, type MarginalTable } from "@calm-ldp/marginal-algebra";
import { cryptoRng } from "@calm-ldp/random";
import type { CalmPlanSummary, CellIntervals, PipelineMessage, PipelineRequest } from "./api.js";
import { instrumentMethod } from "./instrument-method.js";
import { parseUpload } from "./parse-upload.js";

/** Options of {@link runPipeline}. */
export interface PipelineOptions {
  /** Method factory (default: the harness's, every id in `HARNESS_METHOD_IDS`). */
  factory?: MethodFactory;
  /** Checked before each repetition; false stops (the page cancels by terminating the worker instead). */
  shouldContinue?(): boolean;
}

/** Thrown for a request the pipeline cannot run (bad inspected marginal, ...). */
export class InvalidRequestError extends Error {
  override readonly name = "InvalidRequestError";
}

/** Check that `inspect` is k distinct attribute indices in [0, d); returns them ascending. */
export function checkInspect(inspect: readonly number[], d: number, k: number): number[] {
  const sorted = [...inspect].sort((a, b) => a - b);
  const ok =
    sorted.length === k &&
    sorted.every((a, i) => Number.isInteger(a) && a >= 0 && a < d && (i === 0 || a !== sorted[i - 1]));
  if (!ok)
    throw new InvalidRequestError(
      `runPipeline: the inspected marginal must be k = ${k} distinct attribute indices in [0, ${d - 1}] (got ${JSON.stringify(inspect)})`,
    );
  return sorted;
}

/** CALM's plan as the page shows it. O(views). */
export function summarizeCalmPlan(plan: CalmPlan): CalmPlanSummary {
  return {
    eps: plan.eps,
    theta: plan.theta,
    l: plan.l,
    m: plan.m,
    covering: plan.covering,
    selection: String(plan.selection),
    views: plan.views.map((view) => ({
      attributes: [...view.attributes],
      cells: view.cells,
      oracle: view.oracle,
    })),
  };
}

/** The level of the intervals shown on the inspected marginal. */
export const INSPECT_LEVEL = 0.95;

/**
 * The inspected marginal's per-cell interval from a synopsis whose `query`
 * takes calm-core's interval option (`query(attrs, { interval })`: CALM's and
 * the linear baselines'): analytic when a view covers the marginal, and for
 * CALM's maximum-entropy answers calm-core's bound-based interval (Fréchet
 * bounds of the covered parts widened by their noise: conservative, sound
 * whatever the true table; standard error NaN). Never the parametric bootstrap
 * (it shows the noise, not the maximum-entropy model's bias: measured here at
 * n = 4000, d = 8, k = 3, eps = 2 it covered 0 of 8 true cells). A synopsis that
 * ignores the option (no `lower`/`upper` of the right length back) or refuses it
 * gives the reason instead. O(a few analytic intervals).
 */
export function inspectInterval(
  synopsis: MarginalSynopsis,
  attributes: readonly number[],
  cells: number,
): { interval: CellIntervals } | { noInterval: string } {
  type WithInterval = MarginalTable & {
    level?: number;
    lower?: Float64Array;
    upper?: Float64Array;
    standardError?: Float64Array;
    intervalMethod?: "analytic" | "bootstrap" | "bounds";
  };
  let answer: WithInterval;
  try {
    const query = synopsis.query as (a: readonly number[], o: object) => WithInterval;
    answer = query.call(synopsis, attributes, { interval: INSPECT_LEVEL });
  } catch (error) {
    return { noInterval: error instanceof Error ? error.message : String(error) };
  }
  const { lower, upper, standardError, intervalMethod, level } = answer;
  if (
    !lower ||
    !upper ||
    !standardError ||
    lower.length !== cells ||
    upper.length !== cells ||
    level !== INSPECT_LEVEL ||
    intervalMethod === undefined ||
    intervalMethod === "bootstrap"
  )
    return { noInterval: "this method's estimate has no interval here" };
  return {
    interval: {
      level,
      method: intervalMethod,
      lower: [...lower],
      upper: [...upper],
      standardError: [...standardError],
    },
  };
}

/**
 * The web demo's whole pipeline, in one thread (the page runs it in a Web
 * Worker): the experiment harness's repetitions (`runRepetition` with the
 * harness's seeds, so seeded runs equal `pnpm calm-ldp run` with the same
 * options), every method run streamed as it finishes; from repetition 1 also
 * CALM's plan per eps and the inspected marginal's true and estimated cells per
 * method and eps, with a 95% interval per cell where the method gives an
 * analytic one ({@link inspectInterval}). With `random: "crypto"`, every perturbation draws from
 * `cryptoRng()` instead of the seeded stream. Uploaded files are parsed here with
 * `@calm-ldp/datasets`. Errors are reported as an `error` message, not thrown.
 * Cost: the experiment's (reps x |eps| x |methods| method runs), plus O(n k) for
 * the inspected marginal.
 */
export function runPipeline(
  request: PipelineRequest,
  emit: (message: PipelineMessage) => void,
  options: PipelineOptions = {},
): void {
  const started = performance.now();
  try {
    const { config } = request;
    validateConfig(config);
    const inspect = checkInspect(request.inspect, config.d, config.k);
    const population: LoadedDataset | undefined = request.upload
      ? parseUpload(request.upload, config.d, config.c)
      : undefined;
    const source = createDataSource(config, population);
    const factory = options.factory ?? defaultMethodFactory;
    const perturbation = request.random === "crypto" ? cryptoRng() : undefined;
    const total = config.reps * config.eps.length * config.methods.length;
    let done = 0;
    let stopped = false;
    for (let rep = 0; rep < config.reps; rep++) {
      if (options.shouldContinue && !options.shouldContinue()) {
        stopped = true;
        break;
      }
      let truth: MarginalTable | undefined;
      const tracked: DataSource = {
        spec: source.spec,
        sample(r, seed) {
          const sample = source.sample(r, seed);
          if (rep === 0) {
            emit({
              type: "dataset",
              info: sample.info,
              names: sample.schema.attributes.map((a) => a.name),
              labels: sample.schema.attributes.map((a) => [...a.labels]),
            });
            truth = contingencyTable(sample.store, inspect);
          }
          return sample;
        },
      };
      const instrumented: MethodFactory = (id, methodOptions) =>
        instrumentMethod(factory(id, methodOptions), {
          ...(perturbation ? { rng: perturbation } : {}),
          onPlan(plan) {
            // calm-plus shares CALM's plan (plan.method is "calm"): show it once, for calm.
            if (rep === 0 && id === "calm" && plan.method === "calm")
              emit({ type: "plan", plan: summarizeCalmPlan(plan as CalmPlan) });
          },
          onSynopsis(synopsis, parameters) {
            if (rep !== 0 || !truth) return;
            let estimate: MarginalTable;
            try {
              estimate = synopsis.query(inspect);
            } catch {
              return; // the harness records this method's failure itself
            }
            emit({
              type: "table",
              table: {
                method: id,
                eps: parameters.eps,
                attributes: inspect,
                cardinalities: [...truth.cardinalities],
                truth: [...truth.cells],
                estimate: [...estimate.cells],
                ...inspectInterval(synopsis, inspect, estimate.cells.length),
              },
            });
          },
        });
      runRepetition(config, tracked, rep, instrumented, {
        onRun(run) {
          done++;
          emit({ type: "run", run, done, total });
        },
      });
    }
    emit({ type: "done", seconds: (performance.now() - started) / 1000, stopped });
  } catch (error) {
    emit({
      type: "error",
      message: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
  }
}
