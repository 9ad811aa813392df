import type { Rng } from "@calm-ldp/random";

/** One attribute: a name and its category labels (cardinality = labels.length >= 2). */
export interface Attribute {
  readonly name: string;
  readonly labels: readonly string[];
}

/** The attributes of a dataset, in a fixed order; attribute i is referred to by index i. */
export interface Schema {
  readonly attributes: readonly Attribute[];
}

/** Column types a record store may use; values of attribute i lie in [0, c_i). */
export type Column = Uint8Array | Uint16Array | Uint32Array;

/**
 * Records stored column-major: `columns[i][r]` is record r's value of attribute i.
 * Column-major stores make contingency tables one pass over only the columns a
 * query touches.
 */
export interface RecordStore {
  readonly schema: Schema;
  /** Number of records. */
  readonly size: number;
  readonly columns: readonly Column[];
}

/** Whether a table holds fractions of users (cells sum to 1) or raw counts. */
export type CellUnit = "fraction" | "count";

/**
 * A marginal table over an attribute set. Cell order is mixed radix with the first
 * (lowest-index) attribute most significant: cell index of values (v_1..v_k) is
 * `((v_1 * c_2 + v_2) * c_3 + v_3) ...`. Every package uses this order.
 */
export interface MarginalTable {
  /** Attribute indices, strictly ascending. */
  readonly attributes: readonly number[];
  /** Cardinality of each attribute in `attributes` (same order). */
  readonly cardinalities: readonly number[];
  readonly cells: Float64Array;
  readonly unit: CellUnit;
}

/** Public parameters common to every marginal-release method. */
export interface ProtocolParameters {
  readonly schema: Schema;
  /** Expected number of users (reports). */
  readonly n: number;
  /** Privacy budget of one user's whole report (pure eps-LDP). */
  readonly eps: number;
  /** The query size the method is tuned for (k-way marginals). */
  readonly k: number;
}

/**
 * A plan: the public parameters every client receives. Plain JSON (no class
 * instances, no typed arrays), with the method id and a format version.
 */
export interface ProtocolPlan {
  readonly method: string;
  readonly version: number;
  readonly eps: number;
  readonly n: number;
  readonly k: number;
  readonly schema: Schema;
}

/** Server-side accumulation of reports; counts are additive, so aggregators merge. */
export interface ReportAggregator<Report> {
  /** Count one report (validated; throws a typed error, counting nothing, if it is malformed). */
  add(report: Report): void;
  /** Fold another aggregator of the same plan into this one. */
  merge(other: ReportAggregator<Report>): void;
  /** Number of reports counted. */
  readonly reports: number;
}

/** Answers marginal queries from one estimate. */
export interface MarginalSynopsis {
  /** The estimated marginal (fractions) over `attributes` (any order; answered ascending). */
  query(attributes: readonly number[]): MarginalTable;
}

/**
 * What a marginal-release method implements (CALM, and every baseline): the one
 * method interface. plan -> client report -> aggregator -> synopsis, plus optional
 * members where the method has them: a count-level simulation, a batched per-user
 * path, a label and the analytical expected SSE. Contributors implement this to add
 * a method; the registry (`@calm-ldp/baselines`' `createMethod`), the population
 * runner (`runMethod`), the experiment harness, the CLI and the collector all take
 * a `MarginalProtocol`.
 */
export interface MarginalProtocol<Plan extends ProtocolPlan = ProtocolPlan, Report = unknown> {
  /** Lower-case id used by the CLI (`calm`, `inpht`, ...). */
  readonly id: string;
  /** Choose the public parameters. Throws before any work if the method cannot run at this size. */
  plan(parameters: ProtocolParameters): Plan;
  /** Client: perturb one record (values per attribute) into one report. */
  report(plan: Plan, record: ArrayLike<number>, rng: Rng): Report;
  /** Server: an empty aggregator for this plan. */
  createAggregator(plan: Plan): ReportAggregator<Report>;
  /** Server: turn the aggregate into a synopsis that answers marginal queries. */
  estimate(plan: Plan, aggregator: ReportAggregator<Report>): MarginalSynopsis;
  /**
   * Count-level simulation: the aggregate that `data.size` independent users would
   * produce, drawn without a per-user loop where the method's distribution allows it.
   * Same distribution as running `report` for every record and adding it.
   */
  simulate?(plan: Plan, data: RecordStore, rng: Rng): ReportAggregator<Report>;
  /**
   * The per-user path: every record of `data` perturbed by the method's real client
   * kernel (the one `report` runs), batched, and aggregated. Same distribution as
   * `report` + `add` for every record, much faster. Without it, runners call
   * `report` and `add` record by record.
   */
  simulatePerUser?(plan: Plan, data: RecordStore, rng: Rng): ReportAggregator<Report>;
  /** Name in the papers (e.g. "InpHT"); every registry method has one. */
  readonly label?: string;
  /**
   * Expected SSE (fractions) of the raw answer to `attributes` from the method's
   * own noise: exact given the true marginal `truth` (fractions over the same
   * attributes), the f-free first-order form without it. Only where a closed form exists.
   */
  expectedSse?(plan: Plan, attributes: readonly number[], truth?: MarginalTable): number;
}

/**
 * How an attribute is given to `createSchema`: with its labels, or with a
 * cardinality only (labels then default to "0", "1", ..., "c-1").
 */
export type AttributeSpec = Attribute | { readonly name: string; readonly cardinality: number };

/**
 * Data for `createRecordStore`: record-major rows (`rows[r][i]` = record r's value
 * of attribute i) or attribute-major columns (`columns[i][r]`).
 */
export type RecordStoreInput =
  | { readonly rows: readonly ArrayLike<number>[] }
  | { readonly columns: readonly ArrayLike<number>[] };

/**
 * The binary encoding of a schema: source attribute i (cardinality c_i) becomes
 * `bits[i] = ceil(log2 c_i)` binary attributes, at indices `offsets[i] ..
 * offsets[i] + bits[i] - 1` of `schema`, most significant bit first, so that the
 * bits of a value read left to right are its base-2 digits. Codes `>= c_i` do not
 * encode any value.
 */
export interface BinaryEncoding {
  /** The schema that was encoded. */
  readonly source: Schema;
  /** The binary schema (every cardinality 2). */
  readonly schema: Schema;
  /** Bits per source attribute: `ceil(log2 c_i)`. */
  readonly bits: readonly number[];
  /** Index in `schema` of the most significant bit of each source attribute. */
  readonly offsets: readonly number[];
}

/** A binary-encoded table decoded back onto source attributes. */
export interface DecodedTable {
  /** The table over the source attributes (cells of codes that encode a value). */
  readonly table: MarginalTable;
  /** Mass the encoded table put on codes that encode no value (left out of `table`). */
  readonly invalidMass: number;
}

/**
 * How `makeConsistent` computes the consistency step (../../../docs/algorithms.md#consistency): `"steps"` runs the ordered loop
 * over the intersection closure literally; `"components"` (default) computes the
 * same result in interaction coordinates, much faster.
 */
export type ConsistencyMethod = "components" | "steps";

/** Options of `makeConsistent`. */
export interface ConsistencyOptions {
  readonly method?: ConsistencyMethod;
}

/**
 * Non-negativity methods of ../../../docs/algorithms.md#non-negativity; every one keeps the table total.
 * - `ripple`: zero a negative cell, take its mass evenly out of its neighbours; repeat.
 * - `norm-sub`: subtract one constant from every cell and clip at 0 so the total is kept.
 * - `norm-cut`: zero negative cells, remove the same mass from the smallest positive cells upward.
 */
export type NonNegativityMethod = "ripple" | "norm-sub" | "norm-cut";

/** Options of `ripple`. */
export interface RippleOptions {
  /**
   * A cell ripples while it is below `-threshold * |total|` (default 1e-6). The
   * negatives left above that bound are then zeroed and their mass taken from the
   * positive cells in proportion to their size, so the output is exactly non-negative.
   * (On noisy 256-cell tables, 1e-6 gives the same SSE to 5 digits as 1e-12 at about
   * a twentieth of the moves; see the package README.)
   */
  readonly threshold?: number;
  /** Cap on ripple moves (default 1000 * cells); the same final clean-up applies when it is reached. */
  readonly maxSteps?: number;
}

/** Options of `makeNonNegative`. */
export interface NonNegativityOptions extends RippleOptions {
  /** Default: the method chosen by the measured comparison (see the package README). */
  readonly method?: NonNegativityMethod;
}

/** Options of `postProcessViews` (alternating consistency and non-negativity, ../../../docs/algorithms.md#non-negativity). */
export interface PostProcessOptions extends NonNegativityOptions {
  /** How the consistency step is computed (default "components"; same result as "steps"). */
  readonly consistency?: ConsistencyMethod;
  /** Cap on rounds (one round = consistency, then non-negativity if a cell is negative). Default 30. */
  readonly maxRounds?: number;
  /**
   * A cell counts as negative below `-tolerance * |view total|` (default 1e-12):
   * consistency moves mass by floating-point amounts, so exact zeros come back as
   * tiny negatives.
   */
  readonly tolerance?: number;
}

/** What `postProcessViews` returns: the views and what is left of the two constraints. */
export interface PostProcessResult {
  /** New views (the input is not modified), in input order. */
  readonly views: MarginalTable[];
  /** Rounds run (each begins with a consistency step). */
  readonly rounds: number;
  /** True when the last consistency step left no negative cell: the views are consistent and non-negative. */
  readonly converged: boolean;
  /** Negative cells left (below the tolerance) in the returned views. */
  readonly negativeCells: number;
  /** Sum of |negative cells| left in the returned views (same unit as the views). */
  readonly negativeMass: number;
  /**
   * What is left of inconsistency: the largest change one more consistency step
   * would make to any cell (same unit as the views; 0 up to rounding when converged).
   */
  readonly maxInconsistency: number;
}
