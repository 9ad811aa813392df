import { type LoadedDataset, parseAdult, parseCsv } from "@calm-ldp/datasets";
import type { UploadedData } from "./api.js";

/** A file name usable inside a data spec (no `?`, `&` or `=`, which the spec grammar reserves). */
export function specFileName(name: string): string {
  const cleaned = name.replace(/[?&=#%\s]/g, "_");
  return cleaned === "" ? "upload" : cleaned;
}

/**
 * The data spec an upload stands for (`csv:<name>`, `adult:<name>?partition=...`):
 * what the harness records, and what `pnpm calm-ldp run --data` takes with the file's path.
 */
export function uploadSpec(upload: UploadedData): string {
  const name = specFileName(upload.name);
  if (upload.format === "adult") return `adult:${name}?partition=${upload.partition ?? "capped"}`;
  return `csv:${name}`;
}

/**
 * Parse an uploaded file in the browser with `@calm-ldp/datasets` (the main,
 * browser-safe entry): CSV with a header row (every column, inferred categories)
 * or Adult lines, reduced to the first `d` attributes and capped at `c`
 * categories when given. Throws the datasets' typed errors (naming the line) on
 * malformed input. O(characters).
 */
export function parseUpload(upload: UploadedData, d: number, c?: number): LoadedDataset {
  const reduce = { d, ...(c !== undefined ? { c } : {}), fileName: specFileName(upload.name) };
  if (upload.format === "adult")
    return parseAdult(upload.text, { ...reduce, partition: upload.partition ?? "capped" });
  return parseCsv(upload.text, reduce);
}
