import { fail } from "./errors.js";

/**
 * Group experiment rows by `keys` (first-seen order) and summarise `values` per
 * group: a numeric field becomes its mean over the finite values and
 * `<field>Std` (sample standard deviation, 0 for one value); a boolean field
 * becomes the number of rows where it is true. Every group also gets `reps` (rows
 * with every numeric value finite), `failures` (the others) and, when some row
 * carried one, the first `error`. Array-valued keys (e.g. a pair) are compared by
 * their JSON. O(rows * (keys + values)).
 */
export function summarizeRows<Row extends object>(
  rows: readonly Row[],
  keys: readonly (keyof Row & string)[],
  values: readonly (keyof Row & string)[],
): Record<string, unknown>[] {
  if (!Array.isArray(rows)) fail("summarizeRows", "rows must be an array", rows);
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const id = JSON.stringify(keys.map((key) => row[key]));
    const group = groups.get(id);
    if (group) group.push(row);
    else groups.set(id, [row]);
  }
  return [...groups.values()].map((group) => {
    const first = group[0]!;
    const out: Record<string, unknown> = {};
    for (const key of keys) out[key] = first[key];
    const ok = group.filter((row) =>
      values.every((v) => typeof row[v] !== "number" || !Number.isNaN(row[v] as number)),
    );
    for (const v of values) {
      if (typeof first[v] === "boolean") {
        out[v] = group.filter((row) => row[v] === true).length;
        continue;
      }
      const xs = ok.map((row) => row[v] as number);
      const mean = xs.length > 0 ? xs.reduce((s, x) => s + x, 0) / xs.length : Number.NaN;
      const variance = xs.length > 1 ? xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1) : 0;
      out[v] = mean;
      out[`${v}Std`] = xs.length > 0 ? Math.sqrt(variance) : Number.NaN;
    }
    out.reps = ok.length;
    out.failures = group.length - ok.length;
    const error = group.find((row) => typeof (row as { error?: unknown }).error === "string");
    if (error) out.error = (error as { error?: string }).error;
    return out;
  });
}
