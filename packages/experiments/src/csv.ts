/** One CSV field, quoted when it holds a comma, quote or newline (RFC 4180). */
function field(value: unknown): string {
  const text =
    value === undefined || value === null
      ? ""
      : typeof value === "object"
        ? JSON.stringify(value)
        : String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Rows of objects as CSV text with a header line (the keys of the first row,
 * then any new keys in order of appearance). O(rows x columns).
 */
export function toCsv(rows: readonly Record<string, unknown>[]): string {
  const columns: string[] = [];
  for (const row of rows) for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  const lines = [columns.map(field).join(",")];
  for (const row of rows) lines.push(columns.map((key) => field(row[key])).join(","));
  return `${lines.join("\n")}\n`;
}
