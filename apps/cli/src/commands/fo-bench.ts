import { type FrequencyOracle, valueCounts, zipfValues } from "@calm-ldp/frequency-oracles";
import { cryptoRng, seededRng } from "@calm-ldp/random";
import type { Command } from "../cli-kit.js";
import { ORACLE_OPTION, oracleForCommand } from "./audit.js";

interface FoBenchOptions {
  oracle: string;
  n: number;
  domain: number;
  eps: number;
  path: "per-user" | "simulated";
  zipf: number;
  repeats: number;
  seed: number;
}

/** Users per perturbBatch / addBatch call on the per-user path (bounds memory for any n). */
const CHUNK = 1 << 20;

/**
 * The timed work: every user's report on the per-user path (client perturbation
 * with cryptoRng, aggregation, estimation), or the count-level simulation plus
 * estimation. Returns the estimate.
 */
function estimateOnce(
  oracle: FrequencyOracle,
  path: FoBenchOptions["path"],
  values: Uint32Array,
  counts: Float64Array,
  seed: number,
): Float64Array {
  if (path === "simulated") {
    const simulated = oracle.simulateCounts(counts, seededRng(seed, 1));
    return oracle.estimate(simulated, values.length);
  }
  const rng = cryptoRng();
  const aggregator = oracle.createAggregator();
  for (let start = 0; start < values.length; start += CHUNK) {
    aggregator.addBatch(oracle.perturbBatch(values.subarray(start, start + CHUNK), rng));
  }
  return aggregator.estimate();
}

export const foBenchCommand: Command = {
  name: "fo-bench",
  summary:
    "Time a frequency oracle on Zipf data: perturb every user (per-user path, cryptoRng) or simulate the counts, aggregate, estimate; report seconds (best of --repeats) and the error.",
  options: {
    oracle: ORACLE_OPTION,
    n: { type: "integer", description: "number of users", default: 1_000_000, min: 1, max: 2 ** 31 },
    domain: { type: "integer", description: "domain size D", default: 64, min: 2 },
    eps: { type: "number", description: "privacy budget", default: 1, min: 1e-6, max: 20 },
    path: {
      type: "string",
      description: "per-user or simulated",
      default: "per-user",
      choices: ["per-user", "simulated"],
    },
    zipf: { type: "number", description: "Zipf exponent of the data", default: 1.1, min: 0 },
    repeats: { type: "integer", description: "timed runs; the fastest is reported", default: 3, min: 1 },
    seed: { type: "integer", description: "seed of the data (and of the simulation)", default: 1, min: 0 },
  },
  run(raw, context) {
    const options = raw as unknown as FoBenchOptions;
    const oracle = oracleForCommand("fo-bench", options.oracle, options.eps, options.domain);
    const values = zipfValues(seededRng(options.seed), options.n, options.domain, options.zipf);
    const counts = valueCounts(values, options.domain);
    let best = Number.POSITIVE_INFINITY;
    let estimate: Float64Array = new Float64Array(options.domain);
    for (let r = 0; r < options.repeats; r++) {
      const cpuBefore = process.cpuUsage();
      const started = process.hrtime.bigint();
      estimate = estimateOnce(oracle, options.path, values, counts, options.seed + r);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const cpu = process.cpuUsage(cpuBefore);
      // CPU time (user + system) beside wall time: on a shared machine it shows how much of the wall time was waiting.
      context.log(
        `fo-bench: ${oracle.id} (${oracle.mechanism}) run ${r + 1}/${options.repeats}: ${seconds.toFixed(4)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(4)} s cpu`,
      );
      best = Math.min(best, seconds);
    }
    let maxAbsError = 0;
    let l1Error = 0;
    for (let x = 0; x < options.domain; x++) {
      const error = Math.abs(estimate[x]! - counts[x]! / options.n);
      maxAbsError = Math.max(maxAbsError, error);
      l1Error += error;
    }
    return {
      oracle: options.oracle,
      n: options.n,
      domain: options.domain,
      eps: options.eps,
      path: options.path,
      seconds: best,
      reportsPerSecond: options.n / best,
      maxAbsError,
      l1Error,
    };
  },
};
