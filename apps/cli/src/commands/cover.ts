import {
  DEFAULT_COVERING_ITERATIONS,
  DEFAULT_COVERING_SEED,
  describeCoveringDesign,
  verify,
} from "@calm-ldp/covering-design";
import { type Command, UsageError } from "../cli-kit.js";

interface CoverOptions {
  v: number;
  k: number;
  t: number;
  seed: number;
  iterations?: number;
}

/** What `cover --json` prints. */
export interface CoverResult {
  v: number;
  k: number;
  t: number;
  blocks: number[][];
  lowerBound: number;
  verified: boolean;
  size: number;
  optimal: boolean;
  construction: string;
  seed: number;
  iterations: number | null;
}

export const coverCommand: Command = {
  name: "cover",
  summary:
    "Build a covering design C(v,k,t): k-subsets of v points containing every t-subset (CALM's views), with its Schönheim bound, checked.",
  options: {
    v: { type: "integer", description: "number of points (attributes d)", required: true, min: 1, max: 64 },
    k: { type: "integer", description: "block size (view size l)", required: true, min: 1, max: 64 },
    t: {
      type: "integer",
      description: "strength: every t-subset is covered (query size k)",
      required: true,
      min: 1,
    },
    seed: { type: "integer", description: "seed of the search", default: DEFAULT_COVERING_SEED, min: 0 },
    iterations: {
      type: "integer",
      description: `annealing moves after the constructions (default: the package default, up to ${DEFAULT_COVERING_ITERATIONS})`,
      min: 0,
    },
  },
  run(raw, context) {
    const options = raw as unknown as CoverOptions;
    if (options.k > options.v)
      throw new UsageError(`cover: --k must be <= --v = ${options.v} (got ${options.k})`);
    if (options.t > options.k)
      throw new UsageError(`cover: --t must be <= --k = ${options.k} (got ${options.t})`);
    const start = performance.now();
    const design = describeCoveringDesign(options.v, options.k, options.t, {
      seed: options.seed,
      ...(options.iterations === undefined ? {} : { iterations: options.iterations }),
    });
    context.log(
      `cover: ${design.size} blocks (${design.construction}) in ${(performance.now() - start).toFixed(0)} ms`,
    );
    const result: CoverResult = {
      v: design.v,
      k: design.k,
      t: design.t,
      blocks: design.blocks,
      lowerBound: design.lowerBound,
      verified: verify(design.blocks, design.v, design.t),
      size: design.size,
      optimal: design.optimal,
      construction: design.construction,
      seed: options.seed,
      iterations: options.iterations ?? null,
    };
    return result;
  },
  text(result: CoverResult) {
    const head = `C(${result.v},${result.k},${result.t}) <= ${result.size} blocks (Schönheim bound ${result.lowerBound}${
      result.optimal ? ", optimal" : ""
    }; ${result.construction}; verified: ${result.verified})`;
    return [head, ...result.blocks.map((block) => block.join(" "))].join("\n");
  },
};
