/**
 * What the packages' benchmarks (`bench/` beside each package) share: a plain-text
 * table (first column left-aligned, the others right-aligned, each as wide as its
 * widest cell), a tinybench task's latencies, throughput and per-item cost, and the
 * runtime line. Private to the workspace: benchmarks only, never published.
 */

/** The latency statistics a bench table reads from a tinybench task (ms). */
export interface TimedTask {
  readonly name: string;
  readonly result?: {
    readonly latency?: { readonly mean: number; readonly min: number; readonly p50?: number | undefined };
  };
}

/** A task's latency in ms: mean, best (minimum) and median; NaN when it did not run. O(1). */
export function latency(task: TimedTask): { mean: number; best: number; p50: number } {
  const stats = task.result?.latency;
  return { mean: stats?.mean ?? Number.NaN, best: stats?.min ?? Number.NaN, p50: stats?.p50 ?? Number.NaN };
}

/** Items per second when `items` take `ms` milliseconds, rounded and grouped ("1,234,567"). */
export function perSecond(items: number, ms: number): string {
  return Math.round((items / ms) * 1000).toLocaleString("en-US");
}

/** Nanoseconds per item when `items` take `ms` milliseconds, with `digits` decimals. */
export function nsPer(ms: number, items: number, digits = 2): string {
  return ((ms * 1e6) / items).toFixed(digits);
}

/** The runtime a benchmark ran on: `Node v20.x.y, linux/x64`. */
export function runtime(): string {
  return `Node ${process.version}, ${process.platform}/${process.arch}`;
}

/** How {@link formatTable} aligns: `left`, the indices of the text columns (default [0]). */
export interface TableOptions {
  readonly left?: readonly number[];
}

/**
 * The lines of a table: `header` then `rows`, cells separated by two spaces, each
 * column padded to its widest cell: at the end (left-aligned) for the columns in
 * `options.left` (default: the first), at the start (right-aligned, numbers) for the
 * others. O(cells).
 */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  options: TableOptions = {},
): string[] {
  const left = new Set(options.left ?? [0]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (row: readonly string[]) =>
    widths
      .map((width, column) =>
        left.has(column) ? (row[column] ?? "").padEnd(width) : (row[column] ?? "").padStart(width),
      )
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

/** Prints {@link formatTable}'s lines with console.log. */
export function printTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  options: TableOptions = {},
): void {
  for (const line of formatTable(header, rows, options)) console.log(line);
}

/**
 * Prints a tinybench run as a throughput table: per task its mean ms per operation,
 * items per second and ns per item, where an operation handles `items(task.name)` items.
 * O(tasks).
 */
export function printThroughput(tasks: readonly TimedTask[], items: (name: string) => number): void {
  printTable(
    ["task", "ms/op", "items/s", "ns/item"],
    tasks.map((task) => {
      const { mean } = latency(task);
      const n = items(task.name);
      return [task.name, mean.toFixed(3), perSecond(n, mean), nsPer(mean, n)];
    }),
  );
}
