import type { ClassifyOptions } from "@calm-ldp/analyses";
import type { IntervalTable } from "@calm-ldp/baselines";
import type { MarginalTable } from "@calm-ldp/marginal-algebra";

/** Settings of `runClassification` (CALM §5.4, Figure 6). */
export interface ClassificationConfig {
  /** Feature attribute indices of the population's schema. */
  readonly features: readonly number[];
  /** Label attribute index (a binary attribute). */
  readonly label: number;
  /** Users n (the paper's n; `trainFraction * n` of them report, drawn from the training rows). */
  readonly n: readonly number[];
  readonly eps: readonly number[];
  /** Method ids of `@calm-ldp/baselines` (`calm`, `fc`, `am`, `ft`, ...). */
  readonly methods: readonly string[];
  readonly reps: number;
  readonly seed: number;
  /** Query size k the methods are tuned for (default: features + 1, the released marginal). */
  readonly k?: number;
  /** Fraction of the real rows held out for testing (default 0.2). */
  readonly testFraction?: number;
  /** Options of `createMethod`, by method id. */
  readonly methodOptions?: Readonly<Record<string, Record<string, unknown>>>;
  readonly classify?: ClassifyOptions;
}

/** One result of `runClassification`: a method (or NoNoise / Majority) at one n, eps and repetition. */
export interface ClassificationRow {
  /** A method id, `"nonoise"` (the true marginal) or `"majority"` (the training majority label). */
  readonly method: string;
  readonly n: number;
  readonly eps: number;
  readonly rep: number;
  /** Fraction of the held-out test records misclassified (NaN when the method could not run). */
  readonly misclassification: number;
  /** Users who reported (round(n * (1 - testFraction))). */
  readonly users: number;
  readonly testRecords: number;
  readonly seconds: number;
  readonly error?: string;
}

// ---------------------------------------------------------------------------
// Independence tests and Chow-Liu trees on private 2-way marginals
// ---------------------------------------------------------------------------

/** Settings of `runIndependenceTests` (Cormode et al. §6.1, Figure 7). */
export interface IndependenceConfig {
  /** Attribute pairs to test (indices of the population's schema). */
  readonly pairs: readonly (readonly [number, number])[];
  readonly n: number;
  readonly eps: readonly number[];
  readonly methods: readonly string[];
  readonly reps: number;
  readonly seed: number;
  readonly alpha?: number;
  readonly methodOptions?: Readonly<Record<string, Record<string, unknown>>>;
  /** Also run the noise-aware test where the method has intervals (default true). */
  readonly noiseAware?: boolean;
}

/** One private test against the non-private one on the same users. */
export interface IndependenceRow {
  readonly method: string;
  readonly pair: readonly [number, number];
  readonly n: number;
  readonly eps: number;
  readonly rep: number;
  readonly statistic: number;
  readonly trueStatistic: number;
  /** The critical value of the pair's full table ((c_a - 1)(c_b - 1) degrees of freedom). */
  readonly critical: number;
  readonly reject: boolean;
  readonly trueReject: boolean;
  /** Private test rejects independence where the non-private one does not. */
  readonly typeI: boolean;
  /** Private test keeps independence where the non-private one rejects it. */
  readonly typeII: boolean;
  readonly seconds: number;
  readonly error?: string;
  /**
   * The noise-aware test (`noiseAwareChiSquare`, parametric bootstrap under the
   * fitted independence null), for methods with intervals; absent otherwise.
   */
  readonly noiseAwarePValue?: number;
  readonly noiseAwareReject?: boolean;
  /** Noise-aware test rejects where the non-private one does not. */
  readonly noiseAwareTypeI?: boolean;
  /** Noise-aware test keeps independence where the non-private one rejects it. */
  readonly noiseAwareTypeII?: boolean;
  /**
   * Why the noise-aware test did not run for this pair (the release has no
   * covariance for it: e.g. a CALM pair that no view covers, answered by maximum
   * entropy with a bound-based interval); absent when it ran.
   */
  readonly noiseAwareUnavailable?: string;
}

/** Settings of `runChowLiu` (Cormode et al. §6.2, Figure 8). */
export interface ChowLiuConfig {
  readonly n: number;
  readonly eps: readonly number[];
  readonly methods: readonly string[];
  readonly reps: number;
  readonly seed: number;
  readonly methodOptions?: Readonly<Record<string, Record<string, unknown>>>;
}

/** Total true mutual information of the tree learnt from a method's 2-way marginals. */
export interface ChowLiuRow {
  readonly method: string;
  readonly n: number;
  readonly eps: number;
  readonly rep: number;
  /** Sum of the true mutual information (nats) over the learnt tree's edges. */
  readonly mutualInformation: number;
  /** The same for the tree learnt from the true marginals (the best any tree achieves). */
  readonly optimum: number;
  /** Edges shared with the non-private tree. */
  readonly sharedEdges: number;
  readonly seconds: number;
  readonly error?: string;
}

/** What one method released (`releaseMarginals`), or why it could not. */
export type Release =
  | {
      readonly tables: MarginalTable[];
      /**
       * With `releaseMarginals(..., { intervals: true })`, per query the answer with its
       * interval and covariance (baselines' `queryInterval`); undefined for a method without.
       */
      readonly intervals?: (IntervalTable | undefined)[];
    }
  | { readonly error: string };

/** Progress callback of the experiment runners. */
export interface AnalysisProgress {
  onProgress?(done: number, total: number, message: string): void;
}
