import type { Column } from "@calm-ldp/marginal-algebra";
import type { AttributeInfo, LoadedDataset } from "./api.js";
import { checkC, fail } from "./errors.js";
import { capSentence } from "./finish-dataset.js";
import { reduceAttribute } from "./reduce-attribute.js";

/** Options of {@link capCategories}. */
export interface CapOptions {
  /** Quantile buckets for numeric attributes; default c. */
  readonly numericBuckets?: number;
}

/**
 * Caps every attribute at c categories by the rule of its kind (`info.attributes[i].kind`): nominal keeps
 * the c-1 most frequent categories and merges the rest into "other"; ordinal and numeric merge adjacent
 * categories into at most c contiguous quantile buckets (mid-rank rule, see the README); binary flags are
 * unchanged. Attributes already within the cap share their column. O(rows * d).
 */
export function capCategories(dataset: LoadedDataset, c: number, options: CapOptions = {}): LoadedDataset {
  checkC("capCategories", c);
  const { numericBuckets } = options;
  if (numericBuckets !== undefined && !(Number.isSafeInteger(numericBuckets) && numericBuckets >= 2)) {
    fail("capCategories", "numericBuckets must be an integer >= 2", numericBuckets);
  }
  const attributes = dataset.schema.attributes;
  if (attributes.every((a) => a.labels.length <= c) && numericBuckets === undefined) return dataset;
  const columns: Column[] = [];
  const schemaAttributes: { name: string; labels: string[] }[] = [];
  const infos: AttributeInfo[] = [];
  for (let i = 0; i < attributes.length; i++) {
    const attribute = attributes[i]!;
    const info = dataset.info.attributes[i]!;
    const reduced = reduceAttribute(
      dataset.store.columns[i]!,
      attribute.labels,
      info.kind,
      c,
      numericBuckets,
      false,
    );
    columns.push(reduced.column);
    schemaAttributes.push({ name: attribute.name, labels: reduced.labels });
    const rules = info.rule === "none" ? reduced.rules : [info.rule, ...reduced.rules];
    infos.push({
      ...info,
      cardinality: reduced.labels.length,
      rule: rules.length ? rules.join("; ") : "none",
    });
  }
  const schema = { attributes: schemaAttributes };
  return {
    schema,
    store: { schema, size: dataset.store.size, columns },
    info: {
      ...dataset.info,
      attributes: infos,
      preprocessing: [...dataset.info.preprocessing, capSentence(c, numericBuckets)],
    },
  };
}
