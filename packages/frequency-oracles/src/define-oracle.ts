import { cryptoRng, type Rng } from "@calm-ldp/random";
import { SupportAggregator } from "./aggregator.js";
import type {
  FrequencyOracle,
  OracleAggregator,
  OracleCore,
  ReportBatch,
  ResolvedOracleCore,
} from "./api.js";
import { fail, malformed } from "./errors.js";
import { supportEstimate, supportVariance } from "./estimate.js";
import { fnv1a32, parameterText } from "./fingerprint.js";
import { checkDomain, checkEps, checkTrueCounts, checkValue, checkValues } from "./params.js";
import { simulateSupportPerCell } from "./simulate.js";
import { decodeReportWords, encodeReportWords, isWireId } from "./wire.js";

/** Values handed to the client kernel per call: bounds the kernels' random-word buffers. */
const PERTURB_CHUNK = 4096;

/**
 * Build a full {@link FrequencyOracle} from an {@link OracleCore}: input
 * validation, the default random source (one `cryptoRng()` per oracle, created on
 * first use), batch chunking, the aggregator, the unbiased estimate, the analytic
 * variance, count-level simulation (the core's, or per-cell binomials), the wire
 * format with fingerprint, and report validation everywhere. O(1) to build.
 *
 * This is the extension point for new oracles: implement the core, call
 * `defineOracle`, run `describeOracleContract` from `@calm-ldp/frequency-oracles/testing`.
 */
export function defineOracle<Report>(spec: OracleCore<Report>): FrequencyOracle<Report> {
  const where = "defineOracle";
  const core = withDefaults(where, spec);
  if (typeof core.id !== "string" || !isWireId(core.id))
    fail(where, "id must be 1..32 characters of [a-z0-9-]", core.id);
  if (typeof core.mechanism !== "string" || !isWireId(core.mechanism)) {
    fail(where, "mechanism must be 1..32 characters of [a-z0-9-]", core.mechanism);
  }
  checkEps(where, core.eps);
  checkDomain(where, core.domain);
  if (!(core.p >= 0 && core.p <= 1 && core.q >= 0 && core.q <= 1 && core.p > core.q)) {
    fail(where, "p and q must be probabilities with p > q", [core.p, core.q]);
  }
  if (!Number.isInteger(core.stride) || core.stride < 1 || core.stride > 2 ** 20) {
    fail(where, "stride must be an integer in [1, 2^20]", core.stride);
  }
  if (core.simulateCounts !== undefined && core.simulation === undefined) {
    fail(where, "a core with simulateCounts must declare its simulation law", core.simulation);
  }
  const parameters: Readonly<Record<string, number>> = Object.freeze({ ...(core.parameters ?? {}) });
  for (const [name, value] of Object.entries(parameters)) {
    if (!/^[a-z][a-zA-Z0-9]*$/.test(name) || !Number.isFinite(value)) {
      fail(where, "parameters must map simple names to finite numbers", `${name}=${value}`);
    }
  }
  const text = parameterText(core.id, core.mechanism, core.domain, core.eps, parameters);
  const fingerprint = fnv1a32(text);
  const { id, domain, stride, p, q } = core;
  const scratch = new Uint32Array(stride);
  let defaultRng: Rng | undefined;
  const rngOf = (rng: Rng | undefined): Rng => rng ?? (defaultRng ??= cryptoRng());

  const packChecked = (method: string, report: Report): Uint32Array => {
    core.toWords(report, scratch, 0);
    const problem = core.checkWords(scratch, 0);
    if (problem !== undefined) malformed(`${id}.${method}`, "value", problem);
    return scratch;
  };

  const oracle: FrequencyOracle<Report> = {
    id,
    mechanism: core.mechanism,
    eps: core.eps,
    domain,
    p,
    q,
    stride,
    parameters,
    fingerprint,
    parameterText: text,
    simulation: core.simulation ?? "per-cell",

    perturb(value: number, rng?: Rng): Report {
      checkValue(`${id}.perturb`, value, domain);
      const out = new Uint32Array(stride);
      core.perturbInto([value], 0, 1, out, rngOf(rng));
      return core.fromWords(out, 0);
    },

    perturbBatch(values: ArrayLike<number>, rng?: Rng): ReportBatch {
      checkValues(`${id}.perturbBatch`, values, domain);
      const source = rngOf(rng);
      const count = values.length;
      const words = new Uint32Array(count * stride);
      for (let start = 0; start < count; start += PERTURB_CHUNK) {
        const end = Math.min(count, start + PERTURB_CHUNK);
        core.perturbInto(values, start, end, words.subarray(start * stride, end * stride), source);
      }
      return { oracle: id, fingerprint, stride, count, words };
    },

    reportAt(batch: ReportBatch, index: number): Report {
      if (batch.oracle !== id || batch.fingerprint !== fingerprint) {
        malformed(
          `${id}.reportAt`,
          "fingerprint",
          "batch was produced by another oracle or with other parameters",
        );
      }
      if (!Number.isInteger(index) || index < 0 || index >= batch.count) {
        fail(`${id}.reportAt`, `index must be an integer in [0, ${batch.count})`, index);
      }
      return core.fromWords(batch.words, index * stride);
    },

    supports(report: Report, value: number): boolean {
      checkValue(`${id}.supports`, value, domain);
      return core.supportsAt(packChecked("supports", report), 0, value);
    },

    supportsAt: (words: Uint32Array, offset: number, value: number): boolean =>
      core.supportsAt(words, offset, value),

    createAggregator(): OracleAggregator<Report> {
      return new SupportAggregator(oracle, core);
    },

    estimate(counts: ArrayLike<number>, reports: number, out?: Float64Array): Float64Array {
      if (counts == null || counts.length !== domain)
        fail(`${id}.estimate`, `counts must have length D = ${domain}`, counts?.length);
      return supportEstimate(counts, reports, p, q, out);
    },

    variance(n: number, f?: number): number {
      return supportVariance(n, p, q, f);
    },

    simulateCounts(
      trueCounts: ArrayLike<number>,
      rng: Rng,
      out: Float64Array = new Float64Array(domain),
    ): Float64Array {
      const total = checkTrueCounts(`${id}.simulateCounts`, trueCounts, domain);
      if (out.length !== domain) fail(`${id}.simulateCounts`, `out must have ${domain} cells`, out.length);
      if (rng == null || typeof rng.nextUint32 !== "function")
        fail(`${id}.simulateCounts`, "rng must be an Rng", rng);
      out.fill(0);
      if (core.simulateCounts) core.simulateCounts(trueCounts, rng, out);
      else simulateSupportPerCell(trueCounts, total, p, q, rng, out);
      return out;
    },

    encode(report: Report): Uint8Array {
      return encodeReportWords(id, fingerprint, packChecked("encode", report), 0, stride);
    },

    decode(bytes: Uint8Array): Report {
      decodeReportWords(`${id}.decode`, bytes, id, fingerprint, stride, scratch);
      const problem = core.checkWords(scratch, 0);
      if (problem !== undefined) malformed(`${id}.decode`, "value", problem);
      return core.fromWords(scratch, 0);
    },

    privacyLaw: () => core.privacyLaw(),
  };
  return Object.freeze(oracle);
}

/**
 * Fill in a core's defaults: `mechanism` = id, `stride` = 1, and, when it leaves
 * out all three of `toWords`/`fromWords`/`checkWords`, the one-word codec (a
 * report is an integer in [0, outputs), default outputs = D) with its one-loop
 * `firstInvalid`. A core gives all three codec members or none. O(1).
 */
function withDefaults<Report>(where: string, spec: OracleCore<Report>): ResolvedOracleCore<Report> {
  if (spec == null || typeof spec !== "object") fail(where, "the core must be an object", spec);
  const mechanism = spec.mechanism ?? spec.id;
  const stride = spec.stride ?? 1;
  const given = [spec.toWords, spec.fromWords, spec.checkWords].filter((f) => f !== undefined).length;
  // The resolved core delegates to the given one (its prototype), so class-based cores keep their methods.
  const resolved = Object.create(spec) as ResolvedOracleCore<Report>;
  if (given === 3) return Object.assign(resolved, { mechanism, stride });
  if (given !== 0)
    fail(where, "give all of toWords, fromWords and checkWords, or none (the one-word codec)", given);
  if (stride !== 1)
    fail(where, "the one-word codec (no toWords/fromWords/checkWords) needs stride 1", stride);
  const outputs = spec.outputs ?? spec.domain;
  if (!Number.isInteger(outputs) || outputs < 1 || outputs > 2 ** 32)
    fail(where, "outputs must be an integer in [1, 2^32]", outputs);
  const id = spec.id;
  return Object.assign(resolved, {
    mechanism,
    stride,
    firstInvalid:
      spec.firstInvalid ??
      ((words: Uint32Array, count: number): number => {
        for (let i = 0; i < count; i++) if (words[i]! >= outputs) return i;
        return -1;
      }),
    toWords(report: Report, out: Uint32Array, offset: number): void {
      if (typeof report !== "number" || report >>> 0 !== report) {
        malformed(
          `${id}.toWords`,
          "type",
          `a ${id} report is an integer in [0, ${outputs}) (got ${String(report)})`,
        );
      }
      out[offset] = report as number;
    },
    fromWords: (words: Uint32Array, offset: number): Report => words[offset]! as Report,
    checkWords(words: Uint32Array, offset: number): string | undefined {
      const value = words[offset]!;
      return value < outputs ? undefined : `reported value ${value} is not in [0, ${outputs})`;
    },
  });
}
