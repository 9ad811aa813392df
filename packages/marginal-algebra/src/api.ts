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
 * What a marginal-release method implements (CALM, and every baseline):
 * plan -> client report -> aggregator -> synopsis, plus a count-level
 * simulation where the method allows it. Contributors implement this to add a
 * method; the harness, the CLI and the collector take any `MarginalProtocol`.
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
}
