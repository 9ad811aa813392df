import type { Rng } from "@calm-ldp/random";
import { SupportAggregator } from "./aggregator.js";
import type { FrequencyOracle, OracleAggregator, OracleCore, ReportBatch } from "./api.js";
import { deviceParts } from "./device-oracle.js";
import { fail, malformed } from "./errors.js";
import { supportEstimate, supportVariance } from "./estimate.js";
import { checkTrueCounts, checkValues } from "./params.js";
import { simulateSupportPerCell } from "./simulate.js";
import { decodeReportWords, encodeReportWords } from "./wire.js";

/** Values handed to the client kernel per call: bounds the kernels' random-word buffers. */
const PERTURB_CHUNK = 4096;

/**
 * Build a full {@link FrequencyOracle} from an {@link OracleCore}: the device
 * side ({@link defineDeviceOracle}: input validation, the default random source,
 * `perturb`, `supports`, the output law), batch chunking, the aggregator, the
 * unbiased estimate, the analytic variance, count-level simulation (the core's,
 * or per-cell binomials), the wire format with fingerprint, and report
 * validation everywhere. O(1) to build.
 *
 * This is the extension point for new oracles: implement the core, call
 * `defineOracle`, add one line to `ORACLE_TABLE` (registry.ts), whose contract run checks it
 * (`describeOracleContract` from `@calm-ldp/frequency-oracles/testing` for oracles outside the table).
 */
export function defineOracle<Report>(spec: OracleCore<Report>): FrequencyOracle<Report> {
  const { core, device, scratch, rngOf, packChecked } = deviceParts("defineOracle", spec);
  if (core.simulateCounts !== undefined && core.simulation === undefined) {
    fail("defineOracle", "a core with simulateCounts must declare its simulation law", core.simulation);
  }
  const { id, domain, stride, p, q, fingerprint } = device;

  const oracle: FrequencyOracle<Report> = {
    ...device,
    simulation: core.simulation ?? "per-cell",

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
  };
  return Object.freeze(oracle);
}
