import { type Rng, seededRng } from "@calm-ldp/random";
import { maxEntropy, randomPairViews } from "@calm-ldp/reconstruction";
import type { Command } from "../cli-kit.js";

interface MaxentBenchOptions {
  repeats: number;
  warmup: number;
  seed: number;
  tolerance: number;
}

interface Scenario {
  medianMs: number;
  minMs: number;
  medianIterations: number;
  maxResidual: number;
  allConverged: boolean;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Time maxEntropy on fresh random views `repeats` times (after `warmup` untimed runs). */
function scenario(rng: Rng, k: number, c: number, options: MaxentBenchOptions): Scenario {
  const query = Array.from({ length: k }, (_, i) => i);
  const times: number[] = [];
  const iterations: number[] = [];
  let maxResidual = 0;
  let allConverged = true;
  for (let r = 0; r < options.warmup + options.repeats; r++) {
    const { views } = randomPairViews(rng, k, c);
    const start = process.hrtime.bigint();
    const result = maxEntropy(views, query, { tolerance: options.tolerance });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (r < options.warmup) continue;
    times.push(ms);
    iterations.push(result.iterations);
    maxResidual = Math.max(maxResidual, result.maxResidual);
    allConverged &&= result.converged;
  }
  return {
    medianMs: median(times),
    minMs: Math.min(...times),
    medianIterations: median(iterations),
    maxResidual,
    allConverged,
  };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

export const maxentBenchCommand: Command = {
  name: "maxent-bench",
  summary:
    "Time maximum-entropy reconstruction (IPF) of an 8-way binary, 6-way ternary and 10-way binary marginal from all pairwise views (median over random consistent views).",
  options: {
    repeats: {
      type: "integer",
      description: "timed runs per case (fresh random views each)",
      default: 21,
      min: 1,
      max: 10_000,
    },
    warmup: {
      type: "integer",
      description: "untimed runs per case first (JIT warm-up)",
      default: 5,
      min: 0,
      max: 10_000,
    },
    seed: { type: "integer", description: "seed of the random views", default: 1, min: 0 },
    tolerance: {
      type: "number",
      description: "IPF tolerance (largest residual, fractions)",
      default: 1e-9,
      min: 1e-15,
      max: 0.1,
    },
  },
  run(raw, context) {
    const options = raw as unknown as MaxentBenchOptions;
    const rng = seededRng(options.seed);
    context.log("maxent-bench: 8-way binary from 28 pairwise views");
    const binary8 = scenario(rng, 8, 2, options);
    context.log("maxent-bench: 6-way ternary (729 cells) from 15 pairwise views");
    const ternary6 = scenario(rng, 6, 3, options);
    context.log("maxent-bench: 10-way binary from 45 pairwise views");
    const binary10 = scenario(rng, 10, 2, options);
    return {
      binary8FromPairsMs: round(binary8.medianMs),
      ternary6FromPairsMs: round(ternary6.medianMs),
      binary10FromPairsMs: round(binary10.medianMs),
      maxResidual: Math.max(binary8.maxResidual, ternary6.maxResidual, binary10.maxResidual),
      targetsMs: { binary8FromPairs: 5, ternary6FromPairs: 10, binary10FromPairs: 50 },
      details: {
        binary8: { ...binary8, medianMs: round(binary8.medianMs), minMs: round(binary8.minMs) },
        ternary6: { ...ternary6, medianMs: round(ternary6.medianMs), minMs: round(ternary6.minMs) },
        binary10: { ...binary10, medianMs: round(binary10.medianMs), minMs: round(binary10.minMs) },
      },
      repeats: options.repeats,
      warmup: options.warmup,
      seed: options.seed,
      tolerance: options.tolerance,
    };
  },
};
