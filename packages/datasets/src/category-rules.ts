/**
 * The category reduction rules, on one attribute's category counts. Each returns a mapping old code ->
 * new code and the new labels; `applyMapping` rewrites a column with it.
 * @internal
 */
export interface CategoryMapping {
  readonly mapping: Uint32Array;
  readonly labels: string[];
  /** The rule in words, for `AttributeInfo.rule`; "none" when nothing changed. */
  readonly rule: string;
}

/** Label given to merged nominal categories. */
export const OTHER_LABEL = "other";

/** Count of each code in [0, cardinality). O(rows + cardinality). @internal */
export function countCategories(column: ArrayLike<number>, cardinality: number): Float64Array {
  const counts = new Float64Array(cardinality);
  for (let r = 0, rows = column.length; r < rows; r++) counts[column[r]!]++;
  return counts;
}

function identity(labels: readonly string[]): CategoryMapping {
  const mapping = new Uint32Array(labels.length);
  for (let i = 0; i < mapping.length; i++) mapping[i] = i;
  return { mapping, labels: [...labels], rule: "none" };
}

/**
 * Removes categories with zero count, keeping the order of the others. O(categories).
 * @internal
 */
export function dropEmptyCategories(counts: ArrayLike<number>, labels: readonly string[]): CategoryMapping {
  const mapping = new Uint32Array(labels.length);
  const kept: string[] = [];
  for (let i = 0; i < labels.length; i++) {
    mapping[i] = kept.length;
    if (counts[i]! > 0) kept.push(labels[i]!);
  }
  if (kept.length === labels.length) return identity(labels);
  const removed = labels.length - kept.length;
  return {
    mapping,
    labels: kept,
    rule: `removed ${removed} ${removed === 1 ? "category" : "categories"} without records`,
  };
}

/**
 * Nominal rule: with more than c categories, keep the c - 1 most frequent (ties: lower code first), in
 * order of decreasing count, and merge the rest into one last category "other". O(m log m) for m categories.
 * @internal
 */
export function capNominal(counts: ArrayLike<number>, labels: readonly string[], c: number): CategoryMapping {
  const m = labels.length;
  if (m <= c) return identity(labels);
  const order = Array.from({ length: m }, (_, i) => i).sort((a, b) => counts[b]! - counts[a]! || a - b);
  const mapping = new Uint32Array(m).fill(c - 1);
  const kept: string[] = [];
  for (let j = 0; j < c - 1; j++) {
    mapping[order[j]!] = j;
    kept.push(labels[order[j]!]!);
  }
  let other = OTHER_LABEL;
  while (kept.includes(other)) other = `${other}*`;
  kept.push(other);
  return {
    mapping,
    labels: kept,
    rule: `kept the ${c - 1} most frequent of ${m} categories, merged ${m - c + 1} into "${other}"`,
  };
}

function lowPart(label: string): string {
  const at = label.indexOf("..");
  return at < 0 ? label : label.slice(0, at);
}

function highPart(label: string): string {
  const at = label.lastIndexOf("..");
  return at < 0 ? label : label.slice(at + 2);
}

/**
 * Ordinal rule: cut ordered categories into at most `buckets` contiguous quantile buckets by mid-rank.
 * With N records, F(v) the records in categories before v and n_v those in v, category v goes to bucket
 * `min(B - 1, floor(B (F(v) + n_v / 2) / N))`; empty buckets are dropped and the rest renumbered, so a
 * category holding more than N/B records gets a bucket to itself. Categories without records join the
 * bucket of the previous category. A merged bucket is labelled `lo..hi` (its first and last category).
 * O(m) for m categories.
 * @internal
 */
export function capOrdinal(
  counts: ArrayLike<number>,
  labels: readonly string[],
  buckets: number,
): CategoryMapping {
  const m = labels.length;
  if (m <= buckets) return identity(labels);
  let total = 0;
  for (let i = 0; i < m; i++) total += counts[i]!;
  const raw = new Int32Array(m).fill(-1);
  let before = 0;
  let previous = -1;
  for (let i = 0; i < m; i++) {
    const n = counts[i]!;
    if (n > 0) {
      raw[i] = Math.min(buckets - 1, Math.floor((buckets * (before + n / 2)) / total));
      before += n;
      previous = raw[i]!;
    } else {
      raw[i] = previous; // -1 until the first category with records
    }
  }
  const first = raw.find((b) => b >= 0) ?? 0;
  const mapping = new Uint32Array(m);
  const merged: string[] = [];
  let lastRaw = Number.NaN;
  let start = 0;
  const close = (end: number) => {
    merged.push(end === start ? labels[start]! : `${lowPart(labels[start]!)}..${highPart(labels[end]!)}`);
  };
  for (let i = 0; i < m; i++) {
    const b = raw[i]! < 0 ? first : raw[i]!;
    if (b !== lastRaw) {
      if (i > 0) close(i - 1);
      start = i;
      lastRaw = b;
    }
    mapping[i] = merged.length;
  }
  close(m - 1);
  return {
    mapping,
    labels: merged,
    rule: `${m} ordered categories cut into ${merged.length} quantile buckets (mid-rank, at most ${buckets})`,
  };
}

/** Rewrites codes through `mapping` into `out` (may alias `column` when the type allows). O(rows). @internal */
export function applyMapping<T extends Uint8Array | Uint16Array | Uint32Array>(
  column: ArrayLike<number>,
  mapping: Uint32Array,
  out: T,
): T {
  for (let r = 0, rows = column.length; r < rows; r++) out[r] = mapping[column[r]!]!;
  return out;
}
