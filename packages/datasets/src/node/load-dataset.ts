import { seededRng } from "@calm-ldp/random";
import { ADULT_CLASSIFICATION_ATTRIBUTES } from "../adult.js";
import type { DataSpec, DatasetOptions, LoadedDataset } from "../api.js";
import { capCategories } from "../cap-categories.js";
import { formatDataSpec, parseDataSpec } from "../data-spec.js";
import { checkC, checkD, fail } from "../errors.js";
import { generateFromSpec, SAMPLE_STREAM } from "../generate-from-spec.js";
import { sampleUsers } from "../sample-users.js";
import { loadAdult } from "./load-adult.js";
import { loadCsv } from "./load-csv.js";
import { loadMovielens } from "./load-movielens.js";
import { loadMsnbc } from "./load-msnbc.js";
import { loadNltcs } from "./load-nltcs.js";
import { loadTransactions } from "./load-transactions.js";

/**
 * Loads or generates the data a `--data` spec names, with the run's options (the CLI's --d, --cardinality,
 * --n, --seed): the first d attributes (transactions: the d most frequent items, d required), every
 * attribute capped at c categories, and, for file data with n given, n users sampled by `sampleUsers`
 * (all rows when n = rows, without replacement when n < rows, WITH replacement when n > rows, stated in
 * `info.sampling`) from `seededRng(seed, 3)`. Synthetic specs go to `generateFromSpec` (n and d required).
 * `info.source` is the canonical spec. For many repetitions over one file, load once without n and call
 * `sampleUsers` per repetition. O(input + n * d).
 */
export async function loadDataset(
  spec: string | DataSpec,
  options: DatasetOptions = {},
): Promise<LoadedDataset> {
  const where = "loadDataset";
  const parsed = typeof spec === "string" ? parseDataSpec(spec) : spec;
  if (parsed.kind === "synthetic-iid" || parsed.kind === "synthetic-bn")
    return generateFromSpec(parsed, options);
  const { d, c, n } = options;
  const seed = options.seed ?? 0;
  checkD(where, d);
  checkC(where, c);
  if (n !== undefined && !(Number.isSafeInteger(n) && n >= 1)) fail(where, "n must be an integer >= 1", n);
  if (!(Number.isSafeInteger(seed) && seed >= 0)) fail(where, "seed must be a safe integer >= 0", seed);
  const reduce = { ...(d !== undefined ? { d } : {}), ...(c !== undefined ? { c } : {}) };
  let dataset: LoadedDataset;
  switch (parsed.kind) {
    case "adult": {
      const attributes =
        parsed.attributes?.length === 1 && parsed.attributes[0] === "classification"
          ? ADULT_CLASSIFICATION_ATTRIBUTES
          : parsed.attributes;
      dataset = await loadAdult(parsed.path, {
        ...reduce,
        ...(parsed.partition ? { partition: parsed.partition } : {}),
        ...(attributes ? { attributes } : {}),
      });
      break;
    }
    case "nltcs":
      dataset = await loadNltcs(parsed.path, d !== undefined ? { d } : {});
      break;
    case "msnbc":
      dataset = await loadMsnbc(parsed.path, d !== undefined ? { d } : {});
      break;
    case "movielens":
      dataset = await loadMovielens(parsed.path, {
        ...(d !== undefined ? { d } : {}),
        ...(parsed.top !== undefined ? { top: parsed.top } : {}),
      });
      break;
    case "transactions":
      if (d === undefined)
        fail(where, "d (the number of most frequent items to keep) is required for transaction data", d);
      dataset = await loadTransactions(parsed.path, { d, format: parsed.format });
      break;
    case "csv":
      dataset = await loadCsv(parsed.path, {
        ...reduce,
        ...(parsed.schema !== undefined ? { schema: parsed.schema } : {}),
        ...(parsed.header !== undefined ? { header: parsed.header } : {}),
        ...(parsed.delimiter !== undefined ? { delimiter: parsed.delimiter } : {}),
        ...(parsed.maxCategories !== undefined ? { maxCategories: parsed.maxCategories } : {}),
      });
      break;
  }
  if (
    c !== undefined &&
    (parsed.kind === "nltcs" ||
      parsed.kind === "msnbc" ||
      parsed.kind === "movielens" ||
      parsed.kind === "transactions")
  ) {
    dataset = capCategories(dataset, c);
  }
  dataset = { ...dataset, info: { ...dataset.info, source: formatDataSpec(parsed) } };
  if (n === undefined) return dataset;
  const sampled = sampleUsers(dataset, n, seededRng(seed, SAMPLE_STREAM));
  return { ...sampled, info: { ...sampled.info, sampling: { ...sampled.info.sampling!, seed } } };
}
