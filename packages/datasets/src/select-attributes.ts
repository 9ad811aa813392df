import type { LoadedDataset } from "./api.js";
import { checkD, fail } from "./errors.js";

/**
 * The first d attributes of a dataset (for transaction data, whose attributes are ordered by decreasing
 * item frequency, the d most frequent items). Shares the columns (no copy). O(d).
 */
export function selectAttributes(dataset: LoadedDataset, d: number): LoadedDataset {
  checkD("selectAttributes", d);
  const available = dataset.schema.attributes.length;
  if (d > available) fail("selectAttributes", `d must be <= ${available} (the attributes available)`, d);
  if (d === available) return dataset;
  const schema = { attributes: dataset.schema.attributes.slice(0, d) };
  return {
    schema,
    store: { schema, size: dataset.store.size, columns: dataset.store.columns.slice(0, d) },
    info: {
      ...dataset.info,
      attributes: dataset.info.attributes.slice(0, d),
      preprocessing: [...dataset.info.preprocessing, `kept the first ${d} of ${available} attributes`],
    },
  };
}
