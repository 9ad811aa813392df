import type { DatasetInfo } from "@calm-ldp/datasets";
import type { MarginalProtocol } from "@calm-ldp/marginal-algebra";

/** How a method's aggregate is drawn for a whole population. */
export type PopulationPath = "counts" | "per-user";

/** One experiment: methods x eps grid x repetitions on one dataset. Plain JSON. */
export interface ExperimentConfig {
  /** Dataset spec (`synthetic:iid?p=0.3`, `adult:<dir>`, ...), as `@calm-ldp/datasets` parses it. */
  readonly data: string;
  /** Users per repetition (sampled from the data's rows; with replacement when n exceeds them). */
  readonly n: number;
  /** Attributes used (the first d; transactions: the d most frequent items). */
  readonly d: number;
  /** Query size: k-way marginals. */
  readonly k: number;
  /** Cap on categories per attribute (default: none). */
  readonly c?: number;
  /** Privacy budgets. */
  readonly eps: readonly number[];
  /** Method ids (`calm`, `ft`, `am`, ...). */
  readonly methods: readonly string[];
  /** Random k-way queries per repetition, or "all" for every k-subset. */
  readonly queries: number | "all";
  /** Repetitions. */
  readonly reps: number;
  /** Master seed: every repetition, sample, query set and method run derives its seed from it. */
  readonly seed: number;
  /** "counts" (default): count-level simulation where the method has it; "per-user": every user perturbed. */
  readonly path?: PopulationPath;
  /** Per-method options (e.g. `{ calm: { theta: 0.002 } }`). */
  readonly methodOptions?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /**
   * Confidence level in (0, 1): also ask every query for an interval, for the
   * methods that have them (baselines' `INTERVAL_METHODS`), and record coverage
   * and mean width. Absent: no intervals.
   */
  readonly interval?: number;
}

/** The result of one method at one eps in one repetition. */
export interface MethodRun {
  readonly method: string;
  readonly eps: number;
  readonly rep: number;
  /** Mean SSE over the repetition's queries (fractions). */
  readonly sse: number;
  /** Mean TVD over the repetition's queries. */
  readonly tvd: number;
  /** Wall time: plan + population + estimate + answering every query. */
  readonly seconds: number;
  /** Set when the method refused or failed at this setting (sse/tvd are NaN then). */
  readonly error?: string;
  /**
   * With `config.interval`, for a method with intervals: the fraction of (query
   * cell) pairs whose true fraction lies in [lower, upper], the mean width, and
   * the seconds the interval queries took (not in `seconds`).
   */
  readonly coverage?: number;
  readonly width?: number;
  readonly intervalSeconds?: number;
  /** Method-specific facts worth keeping (CALM's l and m, ...). */
  readonly details?: Readonly<Record<string, unknown>>;
}

/** Mean and spread over repetitions for one method and eps. */
export interface SummaryRow {
  readonly method: string;
  readonly eps: number;
  readonly sseMean: number;
  readonly sseStd: number;
  readonly tvdMean: number;
  readonly tvdStd: number;
  /** Mean wall time per repetition. */
  readonly seconds: number;
  /** Repetitions that ran. */
  readonly reps: number;
  /** Repetitions that failed or refused, with the first error. */
  readonly failures: number;
  readonly error?: string;
  /** With `config.interval`: mean coverage and mean interval width over the repetitions (methods with intervals). */
  readonly coverage?: number;
  readonly width?: number;
}

/** A finished experiment. */
export interface ExperimentResult {
  readonly config: ExperimentConfig;
  readonly dataset: DatasetInfo;
  readonly runs: readonly MethodRun[];
  readonly results: readonly SummaryRow[];
}

/**
 * A method the harness can run: any `MarginalProtocol` (marginal-algebra's one
 * method interface; with `simulatePerUser` the per-user path is batched). Every
 * method `createMethod` returns is one; calm-core's protocol is one as it is.
 */
export type HarnessMethod = MarginalProtocol;

/** Creates a method by id with its options; throws for an unknown id. */
export type MethodFactory = (id: string, options?: Readonly<Record<string, unknown>>) => HarnessMethod;

/** Progress of a running experiment. */
export interface Progress {
  readonly done: number;
  readonly total: number;
  readonly message: string;
}
