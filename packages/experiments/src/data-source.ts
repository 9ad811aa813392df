import { generateFromSpec, type LoadedDataset, parseDataSpec, sampleUsers } from "@calm-ldp/datasets";
import { seededRng } from "@calm-ldp/random";
import type { ExperimentConfig } from "./api.js";
import { invalid } from "./errors.js";

/** Where each repetition's population sample comes from. */
export interface DataSource {
  /** The spec the source was built from. */
  readonly spec: string;
  /** The n users of repetition `rep` (the same for every method and eps of that repetition). */
  sample(rep: number, seed: number): LoadedDataset;
}

/**
 * The data source of an experiment:
 * - synthetic specs generate a fresh population of n records per repetition from
 *   that repetition's seed (the generating network is fixed by the spec's own
 *   `seed=` when given);
 * - file specs need the loaded `population` (all rows, already reduced to d
 *   attributes and c categories; loaded by `loadDataset` in Node or parsed in the
 *   browser), from which each repetition samples n users (with replacement when n
 *   exceeds the rows, as both papers do; `info.sampling` says so).
 * O(n d) per repetition.
 */
export function createDataSource(config: ExperimentConfig, population?: LoadedDataset): DataSource {
  const spec = parseDataSpec(config.data);
  if (spec.kind === "synthetic-iid" || spec.kind === "synthetic-bn") {
    return {
      spec: config.data,
      sample: (_rep, seed) =>
        generateFromSpec(spec, {
          n: config.n,
          d: config.d,
          ...(config.c !== undefined ? { c: config.c } : {}),
          seed,
        }),
    };
  }
  if (!population)
    invalid(
      "createDataSource",
      `${spec.kind} data must be loaded first and passed as the population`,
      config.data,
    );
  if (population.schema.attributes.length < config.d) {
    invalid(
      "createDataSource",
      `the data has ${population.schema.attributes.length} attributes, fewer than d = ${config.d}`,
      config.data,
    );
  }
  return {
    spec: config.data,
    sample: (_rep, seed) => sampleUsers(population, config.n, seededRng(seed)),
  };
}
