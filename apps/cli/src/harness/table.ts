import type { SummaryRow } from "@calm-ldp/experiments";

const fmt = (x: number) => (Number.isFinite(x) ? x.toExponential(3) : "-");

/** The summary as an aligned text table for stdout. */
export function summaryTable(rows: readonly SummaryRow[]): string {
  // Interval columns only when some row has them (`run --interval`); "-" for methods without intervals.
  const intervals = rows.some((row) => row.coverage !== undefined);
  const header = ["method", "eps", "SSE mean", "SSE std", "TVD mean", "TVD std", "s/rep"];
  if (intervals) header.push("coverage", "width");
  header.push("note");
  const note = header.length - 1;
  const body = rows.map((row) => [
    row.method,
    String(row.eps),
    fmt(row.sseMean),
    fmt(row.sseStd),
    fmt(row.tvdMean),
    fmt(row.tvdStd),
    row.seconds.toFixed(3),
    ...(intervals
      ? [
          row.coverage === undefined ? "-" : row.coverage.toFixed(4),
          row.width === undefined ? "-" : row.width.toExponential(3),
        ]
      : []),
    row.failures > 0 ? `${row.failures} failed: ${row.error ?? ""}`.slice(0, 80) : "",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  return [header, ...body]
    .map((r) =>
      r
        .map((cell, i) => (i < 2 || i === note ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
