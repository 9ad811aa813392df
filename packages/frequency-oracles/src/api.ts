import type { Rng } from "@calm-ldp/random";

/** Parameters every oracle takes: the privacy budget of one report and the domain size D (values 0..D-1). */
export interface OracleOptions {
  /** Privacy budget of one report, pure eps-LDP; finite, in (0, 20]. */
  readonly eps: number;
  /** Number of distinct input values D >= 2; inputs are integers in [0, D). */
  readonly domain: number;
}

/** Options of the local-hashing oracles (OLH, BLH). */
export interface LocalHashOptions extends OracleOptions {
  /** Hash range g >= 2 (OLH default `round(e^eps) + 1`; BLH fixes g = 2). */
  readonly g?: number;
}

/** Options of Subset Selection. */
export interface SubsetSelectionOptions extends OracleOptions {
  /** Subset size k in [1, D-1] (default: the k near D / (e^eps + 1) with the smallest variance). */
  readonly k?: number;
}

/** Options accepted by `createOracle`: eps and D, plus `g` (olh) or `k` (ss) where they apply. */
export interface CreateOracleOptions extends OracleOptions {
  readonly g?: number;
  readonly k?: number;
}

/** A factory of the registry (`oracleFactories`). */
export type OracleFactory = (options: CreateOracleOptions) => FrequencyOracle;

/** One line of the oracle table (`ORACLE_TABLE` in registry.ts): everything the registry, the CLI and the registry-wide tests read. */
export interface OracleEntry {
  /** The factory: eps and D, plus the oracle's own options (`g`, `k`, ...). */
  readonly create: OracleFactory;
  /** Its device side (`create*Device`), when it has one: the contract checks that sampler against the law too. */
  readonly device?: (options: OracleOptions) => DeviceOracle;
  /** The only domain size it takes, if it is fixed (binary RR: 2). */
  readonly fixedDomain?: number;
  /** Contract settings when the defaults (eps 1 / D 8, eps 0.5 / D 37, eps 3 / D 3) do not apply. */
  readonly contractConfigs?: readonly { readonly eps: number; readonly domain: number }[];
}

/** A local-hashing report (OLH, BLH): the user's public hash seed and the perturbed bucket in [0, g). */
export interface LocalHashReport {
  readonly seed: number;
  readonly bucket: number;
}

/**
 * Many reports of one oracle, packed: report i occupies
 * `words[i * stride .. (i + 1) * stride)`. GRR/RR/HR use one word (the reported
 * value), OUE/SUE/SS a bitset of ceil(D/32) words (bit x of word x>>5 is
 * coordinate x), OLH/BLH two words (seed, bucket).
 */
export interface ReportBatch {
  /** Id of the oracle that produced the batch. */
  readonly oracle: string;
  /** Parameter fingerprint of that oracle (see {@link FrequencyOracle.fingerprint}). */
  readonly fingerprint: number;
  /** Words per report. */
  readonly stride: number;
  /** Number of reports. */
  readonly count: number;
  /** The packed reports; length >= count * stride. */
  readonly words: Uint32Array;
}

/**
 * How {@link FrequencyOracle.simulateCounts} relates to the per-user path:
 * - `joint`: the whole vector of support counts has exactly the distribution of
 *   n independent per-user reports;
 * - `per-cell`: every cell's count has exactly the per-user distribution, but the
 *   cells are drawn independently (the per-user cells may be correlated).
 */
export type SimulationLaw = "joint" | "per-cell";

/** Output law over finitely many outputs: `probabilities(v, out)[y] = Pr[report = y | input v]`. */
export interface CategoricalLaw {
  readonly kind: "categorical";
  readonly outputs: number;
  probabilities(value: number, out: Float64Array): Float64Array;
}

/** Reports are `bits` independent bits: `probabilities(v, out)[j] = Pr[bit j = 1 | input v]`. */
export interface IndependentBitsLaw {
  readonly kind: "independent-bits";
  readonly bits: number;
  probabilities(value: number, out: Float64Array): Float64Array;
}

/**
 * Reports are (public seed, output), packed as two words `[seed, output]`: the seed
 * is a uniform 32-bit word drawn independently of the input, then the output
 * follows a categorical law given the seed. The exact check enumerates `seeds`
 * representative seeds (index 0..seeds-1); since the seed's law does not depend on
 * the input, the worst ratio is the worst over seeds of the conditional law. The
 * sampler check (`samplerFit`) tests the seed word for uniformity and each
 * report's output against `given` for the seed it carries.
 */
export interface PublicSeedLaw {
  readonly kind: "public-seed";
  readonly seeds: number;
  readonly outputs: number;
  probabilities(value: number, seedIndex: number, out: Float64Array): Float64Array;
  /** The output law given the seed word a report carries (`out[y] = Pr[output = y | seed, input value]`). */
  given(value: number, seed: number, out: Float64Array): Float64Array;
}

/**
 * Reports are k-subsets S of [D] and `Pr[S | v]` depends only on whether v is in S:
 * `exp(logProbabilityIfMember)` if so, else `exp(logProbabilityIfNot)` (per subset).
 * The check enumerates, for every input pair, the four membership classes of S.
 */
export interface MembershipLaw {
  readonly kind: "membership";
  readonly domain: number;
  readonly size: number;
  readonly logProbabilityIfMember: number;
  readonly logProbabilityIfNot: number;
}

/** The exact output law of an oracle, for the exact privacy check on small domains. */
export type PrivacyLaw = CategoricalLaw | IndependentBitsLaw | PublicSeedLaw | MembershipLaw;

/**
 * What an oracle implementer writes; {@link defineOracle} turns it into a full
 * {@link FrequencyOracle} (aggregator, estimate, variance, wire format, default
 * rng, validation, count-level simulation). Every oracle here is a *support*
 * oracle: a report supports some values, `C(x)` counts the reports that support
 * x, and `Pr[report supports x] = p` if the user's value is x, `q` otherwise, so
 * `(C(x)/N - q) / (p - q)` is unbiased (../../../docs/algorithms.md#frequency-oracles).
 */
export interface OracleCore<Report> {
  /** Registry name and wire id: 1..32 characters of [a-z0-9-]. */
  readonly id: string;
  /** The mechanism that runs (default `id`; differs for wrappers such as `adaptive`). */
  readonly mechanism?: string;
  readonly eps: number;
  readonly domain: number;
  /** Pr[a report supports x | the user's value is x]. */
  readonly p: number;
  /** Pr[a report supports x | the user's value is not x]. */
  readonly q: number;
  /** Words per packed report (default 1). */
  readonly stride?: number;
  /** Public parameters beyond eps and D that change what a report means (g, k, ...); they enter the fingerprint. */
  readonly parameters?: Readonly<Record<string, number>>;
  /**
   * Client kernel: write the reports of `values[start..end)` (already validated
   * integers in [0, D)) into `out[0 .. (end-start) * stride)`. Must sample exactly
   * from `rng` (integer thresholds, rejection) and never draw from a global unseeded generator.
   */
  perturbInto(values: ArrayLike<number>, start: number, end: number, out: Uint32Array, rng: Rng): void;
  /** Whether the packed report at `offset` supports value x (x in [0, D)). */
  supportsAt(words: Uint32Array, offset: number, value: number): boolean;
  /** The exact output law, for {@link exactWorstLogRatio}. */
  privacyLaw(): PrivacyLaw;
  /**
   * The default codec: a report is one integer in [0, outputs) packed as one word
   * (default `outputs` = D). Used when the core leaves out `toWords`, `fromWords`
   * and `checkWords` (then `stride` must be 1 and `Report` a number).
   */
  readonly outputs?: number;
  /** Pack one report into `out[offset .. offset + stride)`; throws MalformedReportError(`type`) on a wrong shape (default: the one-word codec). */
  toWords?(report: Report, out: Uint32Array, offset: number): void;
  /** Unpack the report at `words[offset ..]` (a fresh object the caller owns; default: the one-word codec). */
  fromWords?(words: Uint32Array, offset: number): Report;
  /** `undefined` if the packed report at `offset` is one this oracle can produce, else what is wrong with it (default: the word is below `outputs`). */
  checkWords?(words: Uint32Array, offset: number): string | undefined;
  /** Length of the server's tally (default D: the support counts themselves). */
  readonly tallySize?: number;
  /** Server kernel: add `count` validated packed reports to `tally` (default: supportsAt over all x, O(count D)). */
  accumulate?(words: Uint32Array, count: number, tally: Float64Array): void;
  /** Turn the tally into support counts C(x) (default: the tally is C). */
  tallyToSupport?(tally: Float64Array, out: Float64Array): void;
  /** Index of the first packed report that fails `checkWords`, or -1 (default: checkWords on each; one loop with the default codec). */
  firstInvalid?(words: Uint32Array, count: number): number;
  /**
   * Count-level simulation: write into `out` the support counts n independent
   * reports would give, for `trueCounts[x]` users holding x (validated integers).
   * Default: `Binomial(N_x, p) + Binomial(N - N_x, q)` per cell (`per-cell`).
   */
  simulateCounts?(trueCounts: ArrayLike<number>, rng: Rng, out: Float64Array): void;
  /** The law the core's own `simulateCounts` follows (required with it). */
  readonly simulation?: SimulationLaw;
}

/**
 * @internal An {@link OracleCore} with its defaults filled in by `defineOracle`
 * (what the aggregator and the wire paths run).
 */
export type ResolvedOracleCore<Report> = OracleCore<Report> &
  Required<Pick<OracleCore<Report>, "mechanism" | "stride" | "toWords" | "fromWords" | "checkWords">>;

/**
 * The device side of a frequency oracle: its public parameters, `perturb`, the
 * support test and its exact output law (what a client runs and what the privacy
 * audits check). Built by {@link defineDeviceOracle} (the `create*Device`
 * factories of GRR, OUE and SUE) from the same core as the full oracle, so a
 * bundle that only perturbs leaves the server paths (aggregator, estimate,
 * simulation, wire format) out. Every {@link FrequencyOracle} is one.
 */
export interface DeviceOracle<Report = unknown> {
  readonly id: string;
  readonly mechanism: string;
  readonly eps: number;
  readonly domain: number;
  readonly p: number;
  readonly q: number;
  readonly stride: number;
  readonly parameters: Readonly<Record<string, number>>;
  /** FNV-1a (32-bit) of the canonical parameter text `id/mechanism/D=../eps=../<extra>`; carried by every encoded report. */
  readonly fingerprint: number;
  /** The canonical parameter text the fingerprint hashes. */
  readonly parameterText: string;
  /** Client: one report for `value`; `rng` defaults to one `cryptoRng()` per oracle, created on first use. */
  perturb(value: number, rng?: Rng): Report;
  /** Whether `report` supports value x (counts toward C(x)). */
  supports(report: Report, value: number): boolean;
  /** Same on a packed report at `words[offset ..]`. */
  supportsAt(words: Uint32Array, offset: number, value: number): boolean;
  privacyLaw(): PrivacyLaw;
}

/**
 * A local-DP frequency oracle: the client perturbs one value in [0, D) into a
 * report, the server counts reports and estimates the fraction of users holding
 * each value. Built by {@link defineOracle} from an {@link OracleCore}; the
 * built-ins come from {@link createOracle} by name.
 */
export interface FrequencyOracle<Report = unknown> extends DeviceOracle<Report> {
  readonly simulation: SimulationLaw;
  /** Client, many users at once: packed reports for every value (same law as `perturb` on each). */
  perturbBatch(values: ArrayLike<number>, rng?: Rng): ReportBatch;
  /** Report `index` of a batch, unpacked. */
  reportAt(batch: ReportBatch, index: number): Report;
  /** Server: an empty aggregator. */
  createAggregator(): OracleAggregator<Report>;
  /** Unbiased fractions `(C(x)/N - q) / (p - q)` from support counts C and N reports. O(D). */
  estimate(counts: ArrayLike<number>, reports: number, out?: Float64Array): Float64Array;
  /**
   * Variance of one cell's estimate from n reports. Without `f`: the table value
   * of ../../../docs/algorithms.md#frequency-oracles, `q(1-q) / (n (p-q)^2)` (the f-free approximation); with
   * the cell's true fraction `f`: the exact `(f p(1-p) + (1-f) q(1-q)) / (n (p-q)^2)`
   * for n users of whom n f hold x.
   */
  variance(n: number, f?: number): number;
  /** Count-level simulation: support counts as n = sum(trueCounts) reports would give (see {@link simulation}). */
  simulateCounts(trueCounts: ArrayLike<number>, rng: Rng, out?: Float64Array): Float64Array;
  /** Wire format: magic, version, oracle id, fingerprint, payload words (little-endian). */
  encode(report: Report): Uint8Array;
  /** Parse and validate bytes from {@link encode}; throws MalformedReportError naming the problem. */
  decode(bytes: Uint8Array): Report;
}

/** Server-side accumulation for one oracle; counts are additive, so aggregators merge. */
export interface OracleAggregator<Report = unknown> {
  readonly oracle: FrequencyOracle<Report>;
  /** Number of reports counted (N). */
  readonly reports: number;
  /** Count one report; throws MalformedReportError and counts nothing if it is invalid. */
  add(report: Report): void;
  /** Count a batch; validates every report first and counts nothing if one is invalid. */
  addBatch(batch: ReportBatch): void;
  /** Decode and count one encoded report. */
  addEncoded(bytes: Uint8Array): void;
  /** Add support counts drawn by `simulateCounts` for `reports` users. */
  addCounts(supportCounts: ArrayLike<number>, reports: number): void;
  /** Fold another aggregator of the same oracle (same fingerprint) into this one. */
  merge(other: OracleAggregator<Report>): void;
  /** Support counts C(x), x in [0, D). */
  counts(out?: Float64Array): Float64Array;
  /** Unbiased fractions for every value (may be negative; see the post-processing helpers). */
  estimate(out?: Float64Array): Float64Array;
}

/** Options of {@link empiricalAudit}. */
export interface EmpiricalAuditOptions {
  /** Reports drawn per input for the bound (default 1e6). */
  readonly samples?: number;
  /** Extra reports per input, drawn first, used only to choose the event (default samples / 4). */
  readonly selectionSamples?: number;
  /** Overall confidence of the lower bound (default 0.99). */
  readonly confidence?: number;
  /** The two inputs compared (default [0, 1]). */
  readonly pair?: readonly [number, number];
  /** Random source of the sampler under audit (default `cryptoRng()`: the source that really runs). */
  readonly rng?: Rng;
  /** Reports per perturbBatch call (memory bound; default 65,536). */
  readonly chunk?: number;
}

/** What {@link empiricalAudit} found. */
export interface EmpiricalAuditResult {
  readonly pair: readonly [number, number];
  readonly samples: number;
  readonly selectionSamples: number;
  readonly confidence: number;
  /**
   * Lower confidence bound on the eps the sampler achieves, max(0, ...): with
   * probability >= confidence, the true worst log-ratio is at least this.
   */
  readonly epsLower: number;
  /** Point estimate `ln(P_a(E) / P_b(E))` of the chosen event on the measurement samples. */
  readonly epsEstimate: number;
  /** The chosen event: the input it favours and the audit classes it contains. */
  readonly event: { readonly favours: number; readonly classes: readonly string[] };
  /** Reports in the event under the favoured input and under the other one. */
  readonly hits: readonly [number, number];
}

/** Options of {@link exactWorstLogRatio}. */
export interface ExactPrivacyOptions {
  /** Refuse (throw) when the enumeration would take more than this many elementary steps (default 2e8). */
  readonly maxWork?: number;
}
