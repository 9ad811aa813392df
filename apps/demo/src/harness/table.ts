import type { SummaryRow } from "@calm-ldp/experiments";

const fmt = (x: number) => (Number.isFinite(x) ? x.toExponential(3) : "-");

/** The summary as an aligned text table for stdout. */
export function summaryTable(rows: readonly SummaryRow[]): string {
  const header = ["method", "eps", "SSE mean", "SSE std", "TVD mean", "TVD std", "s/rep", "note"];
  const body = rows.map((row) => [
    row.method,
    String(row.eps),
    fmt(row.sseMean),
    fmt(row.sseStd),
    fmt(row.tvdMean),
    fmt(row.tvdStd),
    row.seconds.toFixed(3),
    row.failures > 0 ? `${row.failures} failed: ${row.error ?? ""}`.slice(0, 80) : "",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  return [header, ...body]
    .map((r) =>
      r
        .map((cell, i) => (i < 2 || i === 7 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
