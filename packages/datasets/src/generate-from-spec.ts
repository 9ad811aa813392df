import { seededRng } from "@calm-ldp/random";
import type { DataSpec, DatasetOptions, LoadedDataset } from "./api.js";
import { capCategories } from "./cap-categories.js";
import { formatDataSpec, parseDataSpec } from "./data-spec.js";
import { checkC, checkD, DataSpecError, fail } from "./errors.js";
import { generateBayesNet } from "./generate-bayes-net.js";
import { generateIid } from "./generate-iid.js";

/** Stream of `seededRng(seed, stream)` that draws synthetic records. */
export const RECORD_STREAM = 1;
/** Stream of `seededRng(networkSeed, stream)` that draws a Bayesian network. */
export const NETWORK_STREAM = 2;
/** Stream of `seededRng(seed, stream)` that samples users from a file's rows. */
export const SAMPLE_STREAM = 3;

/**
 * Materialises a synthetic `--data` spec (`synthetic:iid...` or `synthetic:bn...`) with the run's options:
 * n records (required) of d attributes (required), cardinality = the spec's `cardinality`, else `c`, else 2,
 * capped at c if the spec's cardinality exceeds it. Records come from `seededRng(seed, 1)` (seed default
 * 0); a network from `seededRng(spec seed ?? seed, 2)`, so `seed=` in a bn spec fixes the network while the
 * run seed varies the records. Browser-safe; for file specs use `loadDataset` from
 * `@calm-ldp/datasets/node`. `info.source` is the canonical spec, `info.generator` records the seeds.
 * O(n * d) (times k + c for bn).
 */
export function generateFromSpec(spec: string | DataSpec, options: DatasetOptions): LoadedDataset {
  const where = "generateFromSpec";
  const parsed = typeof spec === "string" ? parseDataSpec(spec) : spec;
  if (parsed.kind !== "synthetic-iid" && parsed.kind !== "synthetic-bn") {
    throw new DataSpecError(
      `${where}: ${parsed.kind} data is read from files; use loadDataset from "@calm-ldp/datasets/node"`,
    );
  }
  const { n, d, c } = options;
  const seed = options.seed ?? 0;
  if (n === undefined) fail(where, "n (records to generate) is required for synthetic data", n);
  if (d === undefined) fail(where, "d (attributes to generate) is required for synthetic data", d);
  checkD(where, d);
  checkC(where, c);
  if (!(Number.isSafeInteger(seed) && seed >= 0)) fail(where, "seed must be a safe integer >= 0", seed);
  const cardinality = parsed.cardinality ?? (c !== undefined && Number.isFinite(c) ? c : 2);
  const records = seededRng(seed, RECORD_STREAM);
  let dataset: LoadedDataset;
  let seeds: Record<string, number>;
  if (parsed.kind === "synthetic-iid") {
    const p = parsed.p === undefined ? undefined : parsed.p.length === 1 ? parsed.p[0]! : parsed.p;
    if (Array.isArray(p) && p.length !== d)
      fail(where, `p must list one probability or d = ${d} of them`, p.length);
    dataset = generateIid(
      {
        n,
        d,
        cardinality,
        ...(p !== undefined ? { p } : {}),
        ...(parsed.distribution ? { distributions: parsed.distribution } : {}),
      },
      records,
    );
    seeds = { seed, recordStream: RECORD_STREAM };
  } else {
    const networkSeed = parsed.seed ?? seed;
    dataset = generateBayesNet(
      { n, d, cardinality, maxParents: parsed.parents, strength: parsed.strength, base: parsed.base },
      records,
      seededRng(networkSeed, NETWORK_STREAM),
    );
    seeds = { seed, recordStream: RECORD_STREAM, networkSeed, networkStream: NETWORK_STREAM };
  }
  dataset = {
    ...dataset,
    info: {
      ...dataset.info,
      source: formatDataSpec(parsed),
      generator: { ...dataset.info.generator, ...seeds },
    },
  };
  return c !== undefined && cardinality > c ? capCategories(dataset, c) : dataset;
}
