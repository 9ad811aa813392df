import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { DatasetFileError } from "../errors.js";
import { statDatasetPath } from "./read-file.js";

/**
 * A dataset path that may be a folder: a file is returned as is; for a folder, the entries among
 * `candidates` (tried in order; a RegExp matches any entry name) that exist. Throws `DatasetFileError` when
 * the path does not exist or a folder holds none of them. @internal
 */
export async function resolveDatasetFiles(
  where: string,
  path: string,
  candidates: readonly (string | RegExp)[],
  all = false,
): Promise<string[]> {
  if (!(await statDatasetPath(where, path)).isDirectory()) return [path];
  const entries = (await readdir(path)).sort();
  const found: string[] = [];
  for (const candidate of candidates) {
    const match =
      typeof candidate === "string"
        ? entries.filter((e) => e === candidate)
        : entries.filter((e) => candidate.test(e));
    for (const entry of match) if (!found.includes(entry)) found.push(entry);
    if (!all && found.length > 0) break;
  }
  if (found.length === 0) {
    throw new DatasetFileError(where, path, `folder holds none of ${candidates.map(String).join(", ")}`);
  }
  return found.map((entry) => join(path, entry));
}
