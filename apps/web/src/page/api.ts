import type { DatasetInfo } from "@calm-ldp/datasets";
import type { ExperimentConfig, MethodRun } from "@calm-ldp/experiments";

/**
 * Where each simulated user's perturbation draws its randomness:
 * - "seeded": the harness's seeded streams (xoshiro128**, derived from the master
 *   seed): reproducible, identical to `pnpm calm-ldp run` with the same options;
 * - "crypto": the browser's `crypto.getRandomValues` (`cryptoRng`), as a real
 *   client would; every run differs. Data samples and queries stay seeded.
 */
export type RandomSource = "seeded" | "crypto";

/** A file the user picked, read as text on the main thread and parsed in the worker. */
export interface UploadedData {
  /** `csv`: a CSV file with a header row; `adult`: UCI Adult (`adult.data` / `adult.test`) lines. */
  readonly format: "csv" | "adult";
  /** The file's name (for messages and the data spec). */
  readonly name: string;
  readonly text: string;
  /** Adult only: every attribute reduced to 2 categories, or capped at the category cap. */
  readonly partition?: "binary" | "capped";
}

/** One run of the pipeline, as the page asks the worker for it. Plain data (structured-cloned). */
export interface PipelineRequest {
  readonly config: ExperimentConfig;
  readonly random: RandomSource;
  /** The k attributes of the marginal shown as true vs estimated heatmaps (repetition 1). */
  readonly inspect: readonly number[];
  /** File data; absent for synthetic data. */
  readonly upload?: UploadedData;
}

/** The inspected marginal of repetition 1 under one method and eps: true and estimated cells. */
export interface InspectedTable {
  readonly method: string;
  readonly eps: number;
  /** Attribute indices, ascending. */
  readonly attributes: readonly number[];
  readonly cardinalities: readonly number[];
  /** Exact fractions of the repetition's sample, mixed-radix cell order (first attribute most significant). */
  readonly truth: readonly number[];
  /** The method's estimate (fractions; may be negative), same order. */
  readonly estimate: readonly number[];
  /**
   * A 95% confidence interval per cell for the true fraction, when the method's
   * synopsis gives an analytic one (CALM on a query a view covers); absent otherwise.
   */
  readonly interval?: CellIntervals;
  /** Why there is no interval, when `interval` is absent. */
  readonly noInterval?: string;
}

/** Per-cell confidence intervals of an inspected estimate (calm-core `CalmIntervalTable`'s fields). */
export interface CellIntervals {
  /** Confidence level (0.95). */
  readonly level: number;
  /** "analytic" (estimate -+ z SE) or "bounds" (CALM's maximum-entropy answers: conservative Fréchet bounds). */
  readonly method: "analytic" | "bounds";
  /** Lower and upper bound per cell (clipped to [0, 1]), same order as `estimate`. */
  readonly lower: readonly number[];
  readonly upper: readonly number[];
  /** Per cell (NaN for "bounds": a bound is not an estimate -+ z SE). */
  readonly standardError: readonly number[];
}

/** CALM's plan at one eps: Algorithm 1's choice and the views. */
export interface CalmPlanSummary {
  readonly eps: number;
  readonly theta: number;
  readonly l: number;
  readonly m: number;
  readonly covering: boolean;
  readonly selection: string;
  readonly views: readonly { attributes: readonly number[]; cells: number; oracle: string }[];
}

/** What the worker sends back, in order: dataset, then runs (with plans and tables from repetition 1), then done or error. */
export type PipelineMessage =
  | {
      readonly type: "dataset";
      readonly info: DatasetInfo;
      readonly names: readonly string[];
      readonly labels: readonly (readonly string[])[];
    }
  | { readonly type: "run"; readonly run: MethodRun; readonly done: number; readonly total: number }
  | { readonly type: "plan"; readonly plan: CalmPlanSummary }
  | { readonly type: "table"; readonly table: InspectedTable }
  | { readonly type: "done"; readonly seconds: number; readonly stopped: boolean }
  | { readonly type: "error"; readonly message: string };

/** Main thread -> worker. */
export interface PipelineCommand {
  readonly type: "run";
  readonly request: PipelineRequest;
}
