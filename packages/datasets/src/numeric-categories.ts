/**
 * Ordered categories of a numeric column: its distinct values ascending become the labels, and every value
 * its rank among them. O(rows + m log m) for m distinct values.
 * @internal
 */
export function numericCategories(values: ArrayLike<number>): { labels: string[]; codes: Uint32Array } {
  const distinct = Float64Array.from(new Set(Array.from(values))).sort();
  const rank = new Map<number, number>();
  for (let i = 0; i < distinct.length; i++) rank.set(distinct[i]!, i);
  const codes = new Uint32Array(values.length);
  for (let r = 0; r < values.length; r++) codes[r] = rank.get(values[r]!)!;
  return { labels: Array.from(distinct, String), codes };
}
