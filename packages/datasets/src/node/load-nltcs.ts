import type { BinaryMatrixOptions, LoadedDataset } from "../api.js";
import { createBinaryMatrixParser } from "../binary-matrix.js";
import { forEachTextLine } from "./read-file.js";
import { resolveDatasetFiles } from "./resolve-path.js";

/**
 * Loads NLTCS (or any 0/1 matrix, one record per line, comma or blank separated, optional header) from a
 * file or a folder (its `nltcs.csv`; else `nltcs.train.data`, `nltcs.valid.data`, `nltcs.test.data`
 * concatenated). Columns keep each file's order: the Lowd-Davis `.data` files have columns 4 and 15
 * swapped relative to `nltcs.csv` (see the datasets README). O(characters).
 */
export async function loadNltcs(path: string, options: BinaryMatrixOptions = {}): Promise<LoadedDataset> {
  const where = "loadNltcs";
  let files = await resolveDatasetFiles(where, path, ["nltcs.csv"]).catch(() => undefined);
  files ??= await resolveDatasetFiles(
    where,
    path,
    ["nltcs.train.data", "nltcs.valid.data", "nltcs.test.data"],
    true,
  );
  const parser = createBinaryMatrixParser(where);
  for (const file of files)
    await forEachTextLine(where, file, (line, lineNumber) => parser.line(line, lineNumber, file));
  return parser.finish(options, files);
}
