import type { FrequencyOracle, OracleAggregator, ReportBatch, ResolvedOracleCore } from "./api.js";
import { fail, malformed } from "./errors.js";
import { supportEstimate } from "./estimate.js";
import { decodeReportWords } from "./wire.js";

/**
 * The server side of every oracle built by `defineOracle`: a tally (the support
 * counts C(x), or for HR the counts of each output), the number of reports, and
 * optional support counts added from a count-level simulation. A class because
 * this is where state lives. Every entry point validates before it counts, so a
 * rejected report or batch leaves the aggregator unchanged.
 */
export class SupportAggregator<Report> implements OracleAggregator<Report> {
  readonly #core: ResolvedOracleCore<Report>;
  readonly #tally: Float64Array;
  readonly #scratch: Uint32Array;
  #extra: Float64Array | undefined;
  #reports = 0;

  constructor(
    readonly oracle: FrequencyOracle<Report>,
    core: ResolvedOracleCore<Report>,
  ) {
    this.#core = core;
    this.#tally = new Float64Array(core.tallySize ?? core.domain);
    this.#scratch = new Uint32Array(core.stride);
  }

  /** Number of reports counted (N). */
  get reports(): number {
    return this.#reports;
  }

  /** Validate and count one report. O(stride) plus the oracle's per-report counting cost. */
  add(report: Report): void {
    const core = this.#core;
    core.toWords(report, this.#scratch, 0);
    this.#checkScratch("add");
    this.#accumulate(this.#scratch, 1);
    this.#reports += 1;
  }

  /** Validate the whole batch, then count it. O(count * stride) plus counting. */
  addBatch(batch: ReportBatch): void {
    const where = `${this.oracle.id}.addBatch`;
    const core = this.#core;
    if (batch == null || typeof batch !== "object") malformed(where, "batch", "batch must be a ReportBatch");
    if (batch.oracle !== core.id) {
      malformed(
        where,
        "oracle",
        `batch is from oracle ${JSON.stringify(batch.oracle)}, not ${JSON.stringify(core.id)}`,
      );
    }
    if (batch.fingerprint !== this.oracle.fingerprint || batch.stride !== core.stride) {
      malformed(
        where,
        "fingerprint",
        "batch was produced with different parameters (fingerprint or stride differ)",
      );
    }
    const count = batch.count;
    if (!Number.isInteger(count) || count < 0 || !(batch.words instanceof Uint32Array)) {
      malformed(
        where,
        "batch",
        `batch.count must be an integer >= 0 with a Uint32Array of words (got ${count})`,
      );
    }
    if (batch.words.length < count * core.stride) {
      malformed(
        where,
        "length",
        `batch of ${count} reports needs ${count * core.stride} words (got ${batch.words.length})`,
      );
    }
    const bad = core.firstInvalid
      ? core.firstInvalid(batch.words, count)
      : firstInvalidByCheck(core, batch.words, count);
    if (bad >= 0) {
      const problem = core.checkWords(batch.words, bad * core.stride) ?? "invalid report";
      malformed(where, "value", `report ${bad} of the batch: ${problem}; nothing was counted`);
    }
    this.#accumulate(batch.words, count);
    this.#reports += count;
  }

  /** Decode, validate and count one encoded report. O(bytes). */
  addEncoded(bytes: Uint8Array): void {
    const core = this.#core;
    decodeReportWords(
      `${core.id}.addEncoded`,
      bytes,
      core.id,
      this.oracle.fingerprint,
      core.stride,
      this.#scratch,
    );
    this.#checkScratch("addEncoded");
    this.#accumulate(this.#scratch, 1);
    this.#reports += 1;
  }

  /** Add simulated support counts for `reports` users. O(D). */
  addCounts(supportCounts: ArrayLike<number>, reports: number): void {
    const where = `${this.oracle.id}.addCounts`;
    const domain = this.#core.domain;
    if (supportCounts == null || supportCounts.length !== domain) {
      fail(where, `supportCounts must have length D = ${domain}`, supportCounts?.length);
    }
    if (!Number.isInteger(reports) || reports < 0) fail(where, "reports must be an integer >= 0", reports);
    for (let x = 0; x < domain; x++) {
      const c = supportCounts[x]!;
      if (!(c >= 0 && c <= reports) || !Number.isInteger(c)) {
        fail(where, `supportCounts[${x}] must be an integer in [0, reports = ${reports}]`, c);
      }
    }
    const extra = (this.#extra ??= new Float64Array(domain));
    for (let x = 0; x < domain; x++) extra[x]! += supportCounts[x]!;
    this.#reports += reports;
  }

  /** Add another aggregator's counts (same oracle id and fingerprint). O(tally). */
  merge(other: OracleAggregator<Report>): void {
    const where = `${this.oracle.id}.merge`;
    if (!(other instanceof SupportAggregator))
      malformed(where, "type", "can only merge an aggregator made by createAggregator()");
    if (other.oracle.id !== this.oracle.id || other.oracle.fingerprint !== this.oracle.fingerprint) {
      malformed(
        where,
        "fingerprint",
        `cannot merge an aggregator of ${other.oracle.parameterText} into one of ${this.oracle.parameterText}`,
      );
    }
    const theirs = other.#tally;
    for (let i = 0; i < theirs.length; i++) this.#tally[i]! += theirs[i]!;
    if (other.#extra) {
      const extra = (this.#extra ??= new Float64Array(this.#core.domain));
      for (let x = 0; x < extra.length; x++) extra[x]! += other.#extra[x]!;
    }
    this.#reports += other.#reports;
  }

  /** Support counts C(x) for x in [0, D). O(D), or O(K log K) for Hadamard Response. */
  counts(out: Float64Array = new Float64Array(this.#core.domain)): Float64Array {
    const core = this.#core;
    if (out.length !== core.domain)
      fail(`${this.oracle.id}.counts`, `out must have ${core.domain} cells`, out.length);
    if (core.tallyToSupport) core.tallyToSupport(this.#tally, out);
    else out.set(this.#tally);
    if (this.#extra) for (let x = 0; x < out.length; x++) out[x]! += this.#extra[x]!;
    return out;
  }

  /** Unbiased fractions `(C(x)/N - q) / (p - q)`. O(D) after `counts`. */
  estimate(out: Float64Array = new Float64Array(this.#core.domain)): Float64Array {
    const counts = this.counts(out);
    return supportEstimate(counts, this.#reports, this.#core.p, this.#core.q, counts);
  }

  #checkScratch(method: string): void {
    const problem = this.#core.checkWords(this.#scratch, 0);
    if (problem !== undefined)
      malformed(`${this.oracle.id}.${method}`, "value", `${problem}; nothing was counted`);
  }

  #accumulate(words: Uint32Array, count: number): void {
    const core = this.#core;
    if (core.accumulate) {
      core.accumulate(words, count, this.#tally);
      return;
    }
    const tally = this.#tally;
    const stride = core.stride;
    for (let i = 0; i < count; i++) {
      for (let x = 0; x < core.domain; x++) if (core.supportsAt(words, i * stride, x)) tally[x]! += 1;
    }
  }
}

function firstInvalidByCheck<Report>(
  core: ResolvedOracleCore<Report>,
  words: Uint32Array,
  count: number,
): number {
  for (let i = 0; i < count; i++) if (core.checkWords(words, i * core.stride) !== undefined) return i;
  return -1;
}
