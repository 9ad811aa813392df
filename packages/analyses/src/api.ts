import type { MarginalTable, RecordStore, Schema } from "@calm-ldp/marginal-algebra";

// ---------------------------------------------------------------------------
// Synthetic records
// ---------------------------------------------------------------------------

/**
 * One step of a {@link SamplingModel}: draw the `fresh` attributes of every record
 * from `table`'s conditional distribution given the record's (already drawn)
 * `given` attributes. `given` and `fresh` are disjoint, ascending, and together
 * exactly `table.attributes`.
 */
export interface ModelStep {
  readonly table: MarginalTable;
  readonly given: readonly number[];
  readonly fresh: readonly number[];
}

/**
 * A generative model of records built from released marginals: steps run in
 * order, each drawing its fresh attributes conditioned on attributes drawn by
 * earlier steps (a Bayesian network whose families are marginal tables).
 */
export interface SamplingModel {
  /** Every attribute the model draws, ascending (original attribute indices). */
  readonly attributes: readonly number[];
  /** Cardinality of each of `attributes` (same order). */
  readonly cardinalities: readonly number[];
  readonly steps: readonly ModelStep[];
  /**
   * True when the steps form a junction tree of the input tables: every step's
   * `given` set lies inside one earlier step's table (the running intersection
   * property) and every input table lies inside one step's table. The model's
   * distribution is then the maximum-entropy distribution with those marginals
   * (when they are consistent with each other). False: an approximation that keeps
   * each step's table exactly only as a conditional.
   */
  readonly decomposable: boolean;
  /** Input tables whose information the model does not use (contained in no step's table). */
  readonly unusedTables: number;
}

/** Options of `viewsModel`. */
export interface ViewsModelOptions {
  /**
   * Cardinality of every attribute, by attribute index. With it, attributes in no
   * view are drawn uniformly (one extra step each); `attributes` then defaults to
   * all indices of this array.
   */
  readonly cardinalities?: readonly number[];
  /** The attributes the model must draw (default: every attribute of a view, or of `cardinalities`). */
  readonly attributes?: readonly number[];
}

/** Options of `synopsisModel`. */
export interface SynopsisModelOptions {
  /** Parents per attribute (default 2; 1 grows a tree, 0 makes the attributes independent). */
  readonly maxParents?: number;
  /** Largest answer (cells) a parent set may need (default 4096). */
  readonly maxCells?: number;
  /** The attributes the model must draw (default: every index of `cardinalities`). */
  readonly attributes?: readonly number[];
}

/** Options of `sampleModel` and `sampleMarginal`. */
export interface SampleOptions {
  /**
   * Schema the model's attribute indices refer to; the output store's attributes
   * take their names and labels from it. Default: names `a<index>`, labels 0..c-1.
   */
  readonly schema?: Schema;
}

/** Records drawn from a model. */
export interface SyntheticRecords {
  /**
   * The records. Column j holds original attribute `attributes[j]`, so the store's
   * attribute indices are positions in `attributes`, not original indices.
   */
  readonly store: RecordStore;
  /** Original attribute index of each column, ascending. */
  readonly attributes: readonly number[];
  /** Sum over steps of the negative mass set to 0 before sampling (table units, normalised per table). */
  readonly clippedMass: number;
  /**
   * Conditioning configurations that had no mass in their step's table but were
   * reached by earlier steps; their fresh attributes were drawn from the table's
   * marginal instead. 0 for a single table or a decomposable model of consistent tables.
   */
  readonly emptyConditionals: number;
}

// ---------------------------------------------------------------------------
// Chi-square test of independence
// ---------------------------------------------------------------------------

/** Options of `chiSquareIndependence`. */
export interface ChiSquareOptions {
  /** Significance level (default 0.05: a 95% test). */
  readonly alpha?: number;
}

/** The chi-square test of independence on one 2-way marginal. */
export interface ChiSquareTest {
  /** Pearson's statistic `n * sum_ij (p_ij - p_i p_j)^2 / (p_i p_j)`. */
  readonly statistic: number;
  /** Degrees of freedom `(r' - 1)(c' - 1)` over the rows and columns with positive marginal mass. */
  readonly dof: number;
  /** The critical value: the `1 - alpha` quantile of chi-square with `dof` degrees of freedom. */
  readonly critical: number;
  /** `P(X >= statistic)` for X ~ chi-square(dof). */
  readonly pValue: number;
  /** True when `statistic > critical`: independence rejected, the attributes are declared dependent. */
  readonly reject: boolean;
}

// ---------------------------------------------------------------------------
// Chow-Liu trees
// ---------------------------------------------------------------------------

/** Options of `mutualInformation`. */
export interface MutualInformationOptions {
  /** Logarithm base: `"e"` (nats, default) or `2` (bits). */
  readonly base?: "e" | 2;
}

/** A spanning tree over attributes 0..d-1. */
export interface ChowLiuTree {
  /** The d - 1 edges `[i, j]` with i < j, in the order Prim's algorithm added them. */
  readonly edges: readonly (readonly [number, number])[];
  /** Sum of the edge weights the tree was built from. */
  readonly weight: number;
}

// ---------------------------------------------------------------------------
// SVM
// ---------------------------------------------------------------------------

/** Kernel of the SVM (libsvm's, through the `libsvm-js` WebAssembly build). */
export type SvmKernel = "linear" | "rbf" | "polynomial";

/** Options of `trainSvm` (libsvm C-SVC). */
export interface SvmOptions {
  /** Default `"rbf"` (libsvm's and scikit-learn's SVC default). */
  readonly kernel?: SvmKernel;
  /** The C of C-SVC (default 1). */
  readonly cost?: number;
  /** RBF / polynomial gamma (default 1 / number of features, libsvm's default). */
  readonly gamma?: number;
  /** Polynomial degree (default 3). */
  readonly degree?: number;
  /** libsvm's stopping tolerance (default 0.001). */
  readonly tolerance?: number;
  /** libsvm's kernel cache in MB (default 100). */
  readonly cacheSize?: number;
}

/** A trained binary classifier. */
export interface SvmModel {
  /** Number of features it was trained on. */
  readonly features: number;
  /** Number of support vectors. */
  readonly supportVectors: number;
  /** Predicted label (one of the training labels) of one sample. */
  predict(sample: ArrayLike<number>): number;
  /** Release the WebAssembly memory the model holds (it is not garbage collected). */
  free(): void;
}

// ---------------------------------------------------------------------------
// Classification on a released marginal (CALM §5.4)
// ---------------------------------------------------------------------------

/** How categorical features become SVM inputs. */
export type FeatureEncoding = "one-hot" | "ordinal";

/** Options of `classifyFromMarginal`. */
export interface ClassifyOptions {
  /** Records in the synthetic training set drawn from the marginal (default 2048). */
  readonly trainingRecords?: number;
  /** Default `"one-hot"`: each feature becomes c indicator inputs; `"ordinal"`: value / (c - 1). */
  readonly encoding?: FeatureEncoding;
  readonly svm?: SvmOptions;
}

/** What `classifyFromMarginal` returns. */
export interface MarginalClassifier {
  /** Predicted label for every feature cell (mixed radix over the features, in table order). */
  readonly predictions: Uint8Array;
  /** Support vectors of the SVM (0 when the training set had one label only). */
  readonly supportVectors: number;
  /** Negative mass of the marginal set to 0 before sampling. */
  readonly clippedMass: number;
  /** True when the synthetic training set had a single label (no SVM: that label everywhere). */
  readonly constant: boolean;
}
