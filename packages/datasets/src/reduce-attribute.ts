import type { Column } from "@calm-ldp/marginal-algebra";
import type { AttributeKind } from "./api.js";
import {
  applyMapping,
  type CategoryMapping,
  capNominal,
  capOrdinal,
  countCategories,
  dropEmptyCategories,
} from "./category-rules.js";
import { allocateColumn } from "./column-builder.js";

/** Placeholder category appended when an attribute would have fewer than 2 (a Schema needs >= 2). */
export const EMPTY_LABEL = "(empty)";

/** @internal One attribute after reduction. */
export interface ReducedAttribute {
  readonly column: Column;
  readonly labels: string[];
  readonly rules: string[];
}

/** @internal The number of quantile buckets a numeric attribute gets under cap c. */
export function numericBucketCount(c: number, numericBuckets: number | undefined): number {
  const buckets = numericBuckets ?? (Number.isFinite(c) ? c : 10);
  return Math.min(c, buckets);
}

function compose(first: Uint32Array, second: CategoryMapping): Uint32Array {
  const out = new Uint32Array(first.length);
  for (let i = 0; i < first.length; i++) out[i] = second.mapping[first[i]!]!;
  return out;
}

/**
 * Reduces one column: removes categories without records (unless the domain is fixed or the attribute is
 * binary), then caps it at c by the rule of its kind (nominal: top c-1 + "other"; ordinal: quantile
 * buckets; numeric: at most min(c, numericBuckets) quantile buckets), then pads to 2 categories if
 * needed. Returns the input column itself when nothing changes. O(rows + categories log categories).
 * @internal
 */
export function reduceAttribute(
  column: Column,
  labels: readonly string[],
  kind: AttributeKind,
  c: number,
  numericBuckets: number | undefined,
  dropEmpty: boolean,
): ReducedAttribute {
  if (kind === "binary") return { column, labels: [...labels], rules: [] };
  const counts = countCategories(column, labels.length);
  const rules: string[] = [];
  let mapping: Uint32Array = new Uint32Array(labels.length);
  for (let i = 0; i < mapping.length; i++) mapping[i] = i;
  let current = [...labels];
  let currentCounts: ArrayLike<number> = counts;
  const step = (result: CategoryMapping) => {
    if (result.rule === "none") return;
    rules.push(result.rule);
    const merged = new Float64Array(result.labels.length);
    for (let i = 0; i < current.length; i++) merged[result.mapping[i]!] += currentCounts[i]!;
    mapping = compose(mapping, result);
    current = result.labels;
    currentCounts = merged;
  };
  if (dropEmpty) step(dropEmptyCategories(currentCounts, current));
  if (kind === "nominal") step(capNominal(currentCounts, current, c));
  else
    step(capOrdinal(currentCounts, current, kind === "numeric" ? numericBucketCount(c, numericBuckets) : c));
  if (current.length < 2) {
    rules.push(`padded with an empty category "${EMPTY_LABEL}" (a schema attribute needs >= 2)`);
    current = [...current, EMPTY_LABEL];
  }
  if (rules.length === 0) return { column, labels: current, rules };
  const out = allocateColumn(column.length, current.length);
  applyMapping(column, mapping, out);
  return { column: out, labels: current, rules };
}
