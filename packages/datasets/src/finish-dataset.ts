import type { Column, Schema } from "@calm-ldp/marginal-algebra";
import type { AttributeInfo, AttributeKind, DatasetInfo, LoadedDataset, ReduceOptions } from "./api.js";
import { checkC, checkD, fail, MalformedDataError } from "./errors.js";
import { reduceAttribute } from "./reduce-attribute.js";

/** @internal An attribute as a parser produced it. */
export interface RawAttribute {
  readonly name: string;
  readonly labels: readonly string[];
  readonly kind: AttributeKind;
  /** True for declared domains (schema labels): categories without records are kept. */
  readonly fixedDomain?: boolean;
}

/**
 * @internal A parsed table before selection and capping: codes in [0, labels.length) per column, and the
 * provenance fields it passes on to {@link DatasetInfo} as they are.
 */
export interface RawDataset
  extends Pick<
    DatasetInfo,
    "source" | "files" | "rowsRead" | "drops" | "rows" | "preprocessing" | "generator"
  > {
  readonly attributes: readonly RawAttribute[];
  /** `rows` codes each. */
  readonly columns: readonly Column[];
}

/** @internal The sentence describing a category cap, for `DatasetInfo.preprocessing`. */
export function capSentence(c: number, numericBuckets: number | undefined): string {
  const buckets = numericBuckets === undefined ? "" : ` (numeric: at most ${numericBuckets} buckets)`;
  return (
    `categories capped at c = ${c}${buckets}: nominal attributes keep the c-1 most frequent categories and ` +
    `merge the rest into "other"; ordered and numeric attributes are cut into contiguous quantile buckets (mid-rank rule)`
  );
}

/**
 * Turns a parser's raw table into a `LoadedDataset`: keeps the first d attributes, removes categories
 * without records (except declared domains and binary flags), caps categories at c, packs every column
 * into the narrowest typed array, and writes the provenance. Numeric attributes are always bucketised
 * (at most min(c, numericBuckets) buckets; default 10 when c is Infinity). O(rows * d).
 * @internal
 */
export function finishDataset(raw: RawDataset, where: string, options: ReduceOptions = {}): LoadedDataset {
  checkD(where, options.d);
  checkC(where, options.c);
  const { numericBuckets } = options;
  if (numericBuckets !== undefined && !(Number.isSafeInteger(numericBuckets) && numericBuckets >= 2)) {
    fail(where, "numericBuckets must be an integer >= 2", numericBuckets);
  }
  const available = raw.attributes.length;
  const d = options.d ?? available;
  if (d > available) fail(where, `d must be <= ${available} (the attributes available)`, d);
  if (raw.rows === 0) {
    throw new MalformedDataError(where, raw.files.join(", ") || raw.source, 0, "", "no records left to load");
  }
  const c = options.c ?? Number.POSITIVE_INFINITY;
  const preprocessing = [...raw.preprocessing];
  if (d < available) preprocessing.push(`kept the first ${d} of ${available} attributes`);
  if (Number.isFinite(c)) preprocessing.push(capSentence(c, numericBuckets));
  else if (raw.attributes.slice(0, d).some((a) => a.kind === "numeric")) {
    preprocessing.push(
      `numeric attributes cut into at most ${numericBuckets ?? 10} contiguous quantile buckets (mid-rank rule)`,
    );
  }
  const columns: Column[] = [];
  const attributes: { name: string; labels: string[] }[] = [];
  const infos: AttributeInfo[] = [];
  for (let i = 0; i < d; i++) {
    const attribute = raw.attributes[i]!;
    const reduced = reduceAttribute(
      raw.columns[i]!,
      attribute.labels,
      attribute.kind,
      c,
      numericBuckets,
      !attribute.fixedDomain,
    );
    columns.push(reduced.column);
    attributes.push({ name: attribute.name, labels: reduced.labels });
    infos.push({
      name: attribute.name,
      kind: attribute.kind,
      sourceCategories: attribute.labels.length,
      cardinality: reduced.labels.length,
      rule: reduced.rules.length === 0 ? "none" : reduced.rules.join("; "),
    });
  }
  const schema: Schema = { attributes };
  const rowsDropped = raw.drops.reduce((sum, drop) => sum + drop.rows, 0);
  const info: DatasetInfo = {
    source: raw.source,
    files: raw.files,
    rowsRead: raw.rowsRead,
    rowsDropped,
    drops: raw.drops.filter((drop) => drop.rows > 0),
    rows: raw.rows,
    preprocessing,
    attributes: infos,
    ...(raw.generator ? { generator: raw.generator } : {}),
  };
  return { store: { schema, size: raw.rows, columns }, schema, info };
}
