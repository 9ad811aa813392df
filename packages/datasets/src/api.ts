import type { RecordStore, Schema } from "@calm-ldp/marginal-algebra";

/**
 * How an attribute's categories behave when they are capped (see `capCategories`):
 * - `binary`: a 0/1 flag (labels `["0", "1"]`); never merged.
 * - `nominal`: unordered categories; capping keeps the c-1 most frequent and merges the rest into "other".
 * - `ordinal`: categories in a meaningful order; capping merges adjacent categories into quantile buckets.
 * - `numeric`: an ordinal attribute whose categories are distinct numbers (ascending); always cut into
 *   at most `numericBuckets` quantile buckets.
 */
export type AttributeKind = "binary" | "nominal" | "ordinal" | "numeric";

/** What happened to one attribute between the input and the record store. */
export interface AttributeInfo {
  readonly name: string;
  readonly kind: AttributeKind;
  /** Categories observed (or declared) in the input before any capping. */
  readonly sourceCategories: number;
  /** Categories in the record store (the schema's `labels.length`). */
  readonly cardinality: number;
  /** The reduction applied, in words ("none" when the categories are the input's). */
  readonly rule: string;
}

/** Rows left out of a load, grouped by reason. */
export interface DropCount {
  readonly reason: string;
  readonly rows: number;
}

/** How the records of a store were drawn from the loaded population (see `sampleUsers`). */
export interface SamplingInfo {
  /** Rows of the population the sample was drawn from. */
  readonly population: number;
  /** Records in the sample. */
  readonly n: number;
  /**
   * `all`: n = population, every row once, in order. `without-replacement`: a uniformly random n-subset
   * (original order kept). `with-replacement`: n independent uniform draws of a row.
   */
  readonly method: "all" | "without-replacement" | "with-replacement";
  /** True when some row may appear more than once (`method === "with-replacement"`). */
  readonly withReplacement: boolean;
  /** The seed of the sampling stream, when the sample was drawn by `loadDataset`/`generateFromSpec`. */
  readonly seed?: number;
}

/** Provenance of a loaded or generated dataset: enough to state a figure's data honestly. */
export interface DatasetInfo {
  /** Canonical description, e.g. `adult:/data/adult?partition=binary` or `synthetic:bn?strength=0.5&...`. */
  readonly source: string;
  /** Files read, in order (empty for synthetic data). */
  readonly files: readonly string[];
  /** Data rows read from the input (headers, comments and blank lines excluded). */
  readonly rowsRead: number;
  /** Data rows left out, in total (the sum of `drops`). */
  readonly rowsDropped: number;
  /** Rows left out, by reason. */
  readonly drops: readonly DropCount[];
  /** Rows of the population: `rowsRead - rowsDropped` (before sampling). */
  readonly rows: number;
  /** Every preprocessing step applied, in order, in words. */
  readonly preprocessing: readonly string[];
  /** Per attribute of the store (same order as the schema). */
  readonly attributes: readonly AttributeInfo[];
  /** Present when the store is a sample of the population (see {@link SamplingInfo}). */
  readonly sampling?: SamplingInfo;
  /** Generator parameters and seeds, for synthetic data. */
  readonly generator?: Readonly<Record<string, unknown>>;
}

/** What every loader and generator returns. `store.schema === schema`. */
export interface LoadedDataset {
  readonly store: RecordStore;
  readonly schema: Schema;
  readonly info: DatasetInfo;
}

/** Attribute selection and category capping, common to every loader. */
export interface ReduceOptions {
  /** Keep only the first d attributes (transactions: the d most frequent items). Default: all. */
  readonly d?: number;
  /** Cap every attribute at c categories (integer >= 2, or Infinity for no cap). Default: Infinity. */
  readonly c?: number;
  /**
   * Quantile buckets for `numeric` attributes (integer >= 2). Default: c when c is finite, else 10.
   * A numeric attribute never has more than min(c, numericBuckets) categories.
   */
  readonly numericBuckets?: number;
}

/** Name used in error messages for in-memory input (a file name, an upload's name). */
export interface SourceNameOption {
  /** Default `"<input>"`. */
  readonly fileName?: string;
}

/** Adult (UCI census income) loading. */
export interface AdultOptions extends ReduceOptions, SourceNameOption {
  /**
   * `binary`: every attribute reduced to 2 categories (the CALM paper's "binary partition", Section 5.4;
   * the same rule with c = 2). `capped` (default): the rule with the given c.
   */
  readonly partition?: "binary" | "capped";
  /**
   * Attributes to keep, by name, in this order, before `d` applies. Default: all 15 in file order
   * (`ADULT_ATTRIBUTES`); `ADULT_CLASSIFICATION_ATTRIBUTES` selects the CALM paper's classification set.
   */
  readonly attributes?: readonly string[];
}

/** Transaction files: FIMI (one line of item ids per user) or SPMF (`-1` ends an itemset, `-2` a sequence). */
export interface TransactionOptions extends SourceNameOption {
  /** Number of most frequent items kept as binary attributes (required). */
  readonly d: number;
  /** Input layout; `auto` (default) reads a line containing `-1` or `-2` tokens as SPMF. */
  readonly format?: "auto" | "fimi" | "spmf";
}

/** MSNBC page-category sequences (`msnbc990928.seq`). */
export interface MsnbcOptions extends SourceNameOption {
  /** Keep the first d categories (code order 1..d). Default: all 17. */
  readonly d?: number;
}

/** Files of 0/1 values, one record per line (NLTCS). */
export interface BinaryMatrixOptions extends SourceNameOption {
  readonly d?: number;
  /** Attribute name prefix: attribute i is named `${prefix}${i}`. Default `"nltcs"`. */
  readonly namePrefix?: string;
}

/** One attribute of a CSV schema file. */
export interface CsvAttributeSpec {
  readonly name: string;
  /** The categories, in code order. Values must be one of them. Absent: inferred from the data. */
  readonly labels?: readonly string[];
  /** Default `nominal`. `numeric` values are parsed as numbers and cut into quantile buckets. */
  readonly type?: "nominal" | "ordinal" | "numeric";
  /** The CSV column: a header name (default: `name`), or a 0-based index (required without a header). */
  readonly column?: string | number;
}

/** A CSV schema file: `{"attributes": [{"name": "sex", "labels": ["F", "M"]}, ...]}`. */
export interface CsvSchema {
  readonly attributes: readonly CsvAttributeSpec[];
}

/** Generic CSV loading. */
export interface CsvOptions extends ReduceOptions, SourceNameOption {
  /** Attributes to read; without it every column is read with inferred categories. */
  readonly schema?: CsvSchema;
  /** Whether the first line names the columns. Default true. */
  readonly header?: boolean;
  /** One-character field delimiter. Default `,`. */
  readonly delimiter?: string;
  /** Most distinct values an inferred column may have before the load fails. Default 256. */
  readonly maxCategories?: number;
  /** Field values that mean "missing"; rows with one in a read column are dropped. Default `["", "?", "NA"]`. */
  readonly missing?: readonly string[];
}

/** Independent attributes with given marginals. */
export interface IidOptions {
  /** Records to generate. */
  readonly n: number;
  /** Attributes to generate. */
  readonly d: number;
  /**
   * For binary attributes: P(value = 1), one number for all attributes or one per attribute.
   * Default 0.5. Not allowed together with `distributions` or a cardinality > 2.
   */
  readonly p?: number | readonly number[];
  /** Categories per attribute (one for all, or one per attribute). Default 2. */
  readonly cardinality?: number | readonly number[];
  /**
   * One probability vector for all attributes, or one per attribute (length = that attribute's
   * cardinality, non-negative, normalised here). Default: uniform (or `p` for binary).
   */
  readonly distributions?: readonly number[] | readonly (readonly number[])[];
}

/** A random Bayesian network and the data it generates. */
export interface BayesNetOptions {
  /** Records to generate. */
  readonly n: number;
  /** Attributes (nodes). */
  readonly d: number;
  /** Categories per attribute (one for all, or one per attribute). Default 2. */
  readonly cardinality?: number | readonly number[];
  /**
   * Parents per node: node i gets exactly min(i, maxParents) parents, drawn uniformly from nodes 0..i-1.
   * 0 gives independent attributes, 1 a random tree (forest rooted at node 0). Default 2.
   */
  readonly maxParents?: number;
  /**
   * Correlation strength s in [0, 1]: the probability that a node copies (through a fixed random map) the
   * value of one of its parents, chosen uniformly; otherwise it is drawn from its own base marginal.
   * 0 = independent attributes, 1 = every non-root attribute a function of its parents. Default 0.5.
   */
  readonly strength?: number;
  /** Base marginals: `random` (default; flat Dirichlet, i.e. uniform on the simplex) or `uniform`. */
  readonly base?: "random" | "uniform";
}

/** One node of a {@link BayesNetwork}. */
export interface BayesNode {
  /** Parent node indices (all smaller than this node's index), in draw order. */
  readonly parents: readonly number[];
  /** `maps[j][v]`: the value this node copies when parent j is chosen and has value v. */
  readonly maps: readonly (readonly number[])[];
  /** Base marginal: P(value = x) when the node does not copy a parent. Sums to 1. */
  readonly base: readonly number[];
}

/**
 * A Bayesian network with noisy-copy conditionals: for node i with parents pa(i), k = |pa(i)| > 0,
 * `P(x_i = x | parents = u) = (1 - s) base_i(x) + (s / k) * sum_j [maps_j(u_j) = x]`; roots draw from base_i.
 */
export interface BayesNetwork {
  readonly cardinalities: readonly number[];
  readonly strength: number;
  readonly nodes: readonly BayesNode[];
}

/** A generated dataset together with the network that generated it. */
export interface BayesNetDataset extends LoadedDataset {
  readonly network: BayesNetwork;
}

/** How to draw n users from a population (see `sampleUsers`). */
export interface SampleOptions {
  /**
   * `auto` (default): all rows when n = rows, without replacement when n < rows, with replacement when
   * n > rows. `always`: with replacement whatever n. `never`: without replacement (n > rows is an error).
   */
  readonly replacement?: "auto" | "always" | "never";
}

/** The options every `--data` spec is materialised with (the CLI's --d, --cardinality, --n, --seed). */
export interface DatasetOptions {
  /** First d attributes (transactions: the d most frequent items; required there). */
  readonly d?: number;
  /** Category cap (integer >= 2). For synthetic specs without `cardinality=`, also the generated cardinality. */
  readonly c?: number;
  /** Users: synthetic records to generate (required), or users sampled from a file's rows (default all rows). */
  readonly n?: number;
  /** Seed of the records (synthetic) or of the sample (files); default 0. */
  readonly seed?: number;
}

/** A parsed `--data` spec (see `parseDataSpec`). */
export type DataSpec =
  | {
      readonly kind: "synthetic-iid";
      readonly p?: readonly number[];
      readonly cardinality?: number;
      readonly distribution?: readonly number[];
    }
  | {
      readonly kind: "synthetic-bn";
      readonly strength: number;
      readonly parents: number;
      readonly cardinality?: number;
      readonly base: "random" | "uniform";
      /** Seed of the network (structure and conditionals); absent: derived from the run seed. */
      readonly seed?: number;
    }
  | {
      readonly kind: "adult";
      readonly path: string;
      readonly partition?: "binary" | "capped";
      readonly attributes?: readonly string[];
    }
  | { readonly kind: "nltcs"; readonly path: string }
  | { readonly kind: "movielens"; readonly path: string; readonly top?: number }
  | { readonly kind: "transactions"; readonly path: string; readonly format: "auto" | "fimi" | "spmf" }
  | { readonly kind: "msnbc"; readonly path: string }
  | {
      readonly kind: "csv";
      readonly path: string;
      /** Path of a JSON schema file ({@link CsvSchema}). */
      readonly schema?: string;
      readonly header?: boolean;
      readonly delimiter?: string;
      readonly maxCategories?: number;
    };
