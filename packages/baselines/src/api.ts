import type { CalmPlan, CalmPlusProtocolOptions, CalmProtocolOptions, CalmReport } from "@calm-ldp/calm-core";
import type { FrequencyOracle, LocalHashReport } from "@calm-ldp/frequency-oracles";
import type {
  MarginalProtocol,
  MarginalSynopsis,
  MarginalTable,
  NonNegativityMethod,
  ProtocolPlan,
  ReportAggregator,
} from "@calm-ldp/marginal-algebra";
import type { MethodId } from "./method-id.js";

/** Lower-case ids of every method (`method-id.ts`; the method table in `registry.ts` holds exactly these). */
export type { MethodId };

/** How a population's aggregate is drawn (see `runMethod`). */
export type PopulationPath = "counts" | "per-user";

/** Path requested from `runMethod`: "auto" = "counts" when the method has an exact count-level simulation, else "per-user". */
export type RunPath = PopulationPath | "auto";

/** Options of `runMethod`. */
export interface RunOptions {
  /** Default "auto". */
  readonly path?: RunPath;
}

/** What `runMethod` returns: the filled aggregator and the path that produced it. */
export interface RunResult<Report = unknown> {
  readonly aggregator: ReportAggregator<Report>;
  readonly path: PopulationPath;
}

/** Caps that make a method refuse a setting before it starts (`MethodTooLargeError`). */
export interface SizeLimits {
  /**
   * Largest table or index a method may allocate, in cells (full table for FC and
   * the Inp* methods, coefficient entries for the Hadamard methods, sum of group
   * cells for AM and the Marg methods, the query table for EM). Default 2^24.
   */
  readonly maxCells?: number;
  /**
   * Largest number of elementary operations a population run may take (e.g. n * D
   * hash evaluations for InpOLH's server, n * D / 2 random words for a unary
   * encoding over the full domain). Default 2^33 (tens of seconds here).
   */
  readonly maxWork?: number;
}

/** What the linear (unbiased) methods do with an answer before returning it. */
export type AnswerPostProcessing = "none" | NonNegativityMethod;

/** Options every baseline takes. */
export interface BaselineOptions extends SizeLimits {
  /**
   * Post-processing of each answered table (default "none": the raw unbiased
   * estimate, whose cells may be negative; that is what the analytical expected
   * SSE describes). EM-based methods, BE and Uni return distributions anyway.
   */
  readonly answers?: AnswerPostProcessing;
}

/** Options of the count-mean-sketch methods (InpCMS, InpHTCMS). */
export interface SketchOptions extends BaselineOptions {
  /** Number of hash functions (sketch rows) g; default 5 (Cormode et al., appendix B.2). */
  readonly rows?: number;
  /** Sketch width w (a power of two for InpHTCMS); default 256 (Cormode et al., appendix B.2). */
  readonly width?: number;
  /** Seed of the public hash functions (they are part of the plan); default 0. */
  readonly seed?: number;
}

/** How EM starts (../../../docs/algorithms.md#comparison-methods: InpEM and EM). */
export type EmInitialization = "uniform" | "inclusion-exclusion";

/** Options of the EM-based methods (EM, InpEM). */
export interface EmOptions extends BaselineOptions {
  /**
   * Stop when no cell changes by more than this in one iteration (Cormode et al.'s
   * Omega, the CALM appendix's delta). Default 1e-5, the value Cormode et al. used.
   */
  readonly tolerance?: number;
  /** Cap on EM iterations; reaching it is reported as non-convergence. Default 10,000. */
  readonly maxIterations?: number;
  /** Starting point (default: "inclusion-exclusion" for EM, "uniform" for InpEM). */
  readonly initialization?: EmInitialization;
  /**
   * Weight of the uniform table mixed into the clipped inclusion-exclusion start so
   * that no cell starts at 0 (EM's multiplicative updates never leave 0). Default 0.01.
   */
  readonly initialMix?: number;
}

/** Options of `createMethod`: the union of every method's options (each reads its own). */
export interface MethodOptions extends SketchOptions, EmOptions {
  /** CALM (and BE) plan and estimation options. */
  readonly calm?: CalmProtocolOptions;
  /** calm-plus plan and estimation options (default: those of `calm`, which share the plan options). */
  readonly calmPlus?: CalmPlusProtocolOptions;
}

/** Format version of every baseline plan; bumped when a plan's meaning changes. */
export type BaselinePlanVersion = 1;

/** Fields every baseline plan carries besides {@link ProtocolPlan}'s. */
export interface BaselinePlanBase extends ProtocolPlan {
  readonly method: MethodId;
  readonly version: BaselinePlanVersion;
  /**
   * Bits per attribute of the binary encoding the method runs on (`ceil(log2 c_i)`),
   * or null when it runs on the attributes as they are (FC, AM, EM, Uni).
   */
  readonly bits: readonly number[] | null;
}

/** Oracles a full-domain or grouped plan may name. */
export type PlanOracle = "grr" | "oue" | "sue" | "olh";

/**
 * FC, InpRR, InpPS, InpOLH: one frequency oracle over the full domain (FC: the
 * product of the cardinalities; the Inp* methods: 2^(total bits)).
 */
export interface FullDomainPlan extends BaselinePlanBase {
  readonly method: "fc" | "inprr" | "inpps" | "inpolh";
  /** Cells of the full domain (the oracle's D). */
  readonly domain: number;
  readonly oracle: PlanOracle;
}

/**
 * AM, MargRR, MargPS: users split uniformly into one group per k-subset of the
 * attributes (lexicographic order, see `allQueries`); each reports her group's
 * marginal cell (the Marg methods: its binary code) through the group's oracle.
 */
export interface GroupPlan extends BaselinePlanBase {
  readonly method: "am" | "margrr" | "margps";
  /** Number of groups C(d, k). */
  readonly groups: number;
  /** The oracle: "adaptive" (AM: GRR or OUE per group by its cell count), "sue" or "grr". */
  readonly oracle: "adaptive" | "sue" | "grr";
}

/**
 * FT, InpHT, MargHT: each user draws one Hadamard coefficient entry uniformly and
 * reports its sign through binary randomized response with the full eps.
 */
export interface HadamardPlan extends BaselinePlanBase {
  readonly method: "ft" | "inpht" | "marght";
  /** Number of coefficient entries users draw from (InpHT: |T|; MargHT: C(d,k) (2^k - 1)). */
  readonly entries: number;
  /** Number of groups (MargHT: C(d, k); InpHT and FT: 0). */
  readonly groups: number;
  /** Probability that a reported sign is the true one: e^eps / (1 + e^eps). */
  readonly p: number;
}

/** InpCMS, InpHTCMS: a count-mean sketch over the full binary domain. */
export interface SketchPlan extends BaselinePlanBase {
  readonly method: "inpcms" | "inphtcms";
  /** Full domain 2^(total bits). */
  readonly domain: number;
  /** Hash functions (rows) g. */
  readonly rows: number;
  /** Width w. */
  readonly width: number;
  /** Public seed of each row's hash `h_j(x) = localHash(seed_j, x, w)`. */
  readonly hashSeeds: readonly number[];
}

/** EM, InpEM: every attribute (InpEM: every bit) through GRR with eps / (number of attributes). */
export interface AttributePlan extends BaselinePlanBase {
  readonly method: "em" | "inpem";
  /** Budget of each attribute's report: eps / d (EM) or eps / total bits (InpEM). */
  readonly epsPerAttribute: number;
}

/** Uni: nothing is collected; every answer is the uniform table. */
export interface UniPlan extends BaselinePlanBase {
  readonly method: "uni";
}

/** BE: CALM on the binary encoding. */
export interface BePlan extends BaselinePlanBase {
  readonly method: "be";
  /** The CALM plan over the encoded (binary) schema. */
  readonly calm: CalmPlan;
}

/** Every baseline plan. */
export type BaselinePlan =
  | FullDomainPlan
  | GroupPlan
  | HadamardPlan
  | SketchPlan
  | AttributePlan
  | UniPlan
  | BePlan;

/** A report of AM, MargRR or MargPS: the user's group and her oracle report of the group's cell. */
export interface GroupReport {
  readonly group: number;
  readonly report: number | Uint32Array;
}

/** A report of FT, InpHT or MargHT: the coefficient entry drawn and the randomized sign. */
export interface HadamardReport {
  readonly coefficient: number;
  readonly sign: 1 | -1;
}

/** A report of InpCMS: the sketch row and the SUE bitset of the hashed value. */
export interface SketchReport {
  readonly row: number;
  readonly report: Uint32Array;
}

/** A report of InpHTCMS: the sketch row, the Hadamard coefficient (1..w-1) and the randomized sign. */
export interface HadamardSketchReport {
  readonly row: number;
  readonly coefficient: number;
  readonly sign: 1 | -1;
}

/** A report of EM / InpEM: one randomized value per attribute (InpEM: per bit). */
export type AttributeReport = readonly number[];

/** Report types of the full-domain methods: GRR value, unary bitset, or OLH (seed, bucket). */
export type FullDomainReport = number | Uint32Array | LocalHashReport;

/** Re-exported so callers see every report type here. */
export type { CalmReport, LocalHashReport };

/** A synopsis of any baseline: answers marginal queries over the plan's schema. */
export interface BaselineSynopsis extends MarginalSynopsis {
  readonly plan: ProtocolPlan;
}

/** What one EM run did (../../../docs/algorithms.md#comparison-methods; Cormode et al. Table 3). */
export interface EmDiagnostics {
  /** EM updates performed. */
  readonly iterations: number;
  /** True when the tolerance was met before `maxIterations`. */
  readonly converged: boolean;
  /** Largest cell change in the last update. */
  readonly lastChange: number;
  /** The starting point used. */
  readonly initialization: EmInitialization;
  /**
   * True when the very first update moved no cell by more than the tolerance: the
   * answer is the starting point (to within the tolerance).
   */
  readonly stoppedAtStart: boolean;
  /**
   * True when EM stopped at its first update and the start was the uniform prior:
   * the "stopped at the prior" failure of Cormode et al.'s Table 3. The answer is
   * then (within the tolerance) the uniform table, whatever the data.
   */
  readonly stoppedAtPrior: boolean;
  /** Log-likelihood of the observed reports under the answer (natural log). */
  readonly logLikelihood: number;
  /** Reports used. */
  readonly reports: number;
}

/** An EM answer with its diagnostics. */
export interface EmAnswer {
  readonly table: MarginalTable;
  readonly diagnostics: EmDiagnostics;
}

/** The synopsis of EM / InpEM: `answer` gives the table with what EM did. */
export interface EmSynopsis extends BaselineSynopsis {
  answer(attributes: readonly number[]): EmAnswer;
}

/**
 * A method of this package: marginal-algebra's {@link MarginalProtocol}, the one
 * method interface (optional `simulate`, `simulatePerUser`, `label`, `expectedSse`).
 * Every registry method has `label` and `simulatePerUser`; `simulate` where it has
 * an exact count-level simulation and `expectedSse` where a closed form exists
 * (see {@link MethodInfo}).
 */
export type BaselineProtocol<Plan extends ProtocolPlan = ProtocolPlan, Report = unknown> = MarginalProtocol<
  Plan,
  Report
> & {
  /** The law of one user's report, where the method declares it (see {@link MethodReportLaw}). */
  reportLaw?(plan: Plan): MethodReportLaw<Report>;
};

/**
 * The declared law of a method's report, for methods whose report is one frequency-oracle
 * report of one input derived from the record: the client picks part j with probability
 * `partWeights[j]` (independently of the record: a group, or the one part of a
 * full-domain method), then sends `oracle(j)`'s report of `input(j, record)`. The
 * method contract (`@calm-ldp/baselines/testing`) checks `report`'s samples against
 * it (part frequencies, and each part's reports against its oracle's `privacyLaw()`),
 * and each part's oracle with the exact check, so the method is eps-LDP when they pass.
 */
export interface MethodReportLaw<Report> {
  readonly partWeights: readonly number[];
  oracle(part: number): FrequencyOracle;
  input(part: number, record: ArrayLike<number>): number;
  /** The part a report belongs to and its oracle report. */
  split(report: Report): { readonly part: number; readonly report: unknown };
}

/** Static facts about a method (for the CLI's listing and the harness's reports), without its id. */
export interface MethodFacts {
  readonly label: string;
  /** Where it comes from. */
  readonly paper: "CALM" | "Cormode et al." | "calm-ldp";
  /** "native": runs on the attributes as they are; "binary-encoding": on their binary encoding. */
  readonly data: "native" | "binary-encoding";
  /** Whether `simulate` (exact count-level) exists. */
  readonly countLevel: boolean;
  /** Whether `expectedSse` exists. */
  readonly expectedSse: boolean;
  /** One line. */
  readonly summary: string;
}

/** Static facts about a method, with its id. */
export interface MethodInfo extends MethodFacts {
  readonly id: MethodId;
}
