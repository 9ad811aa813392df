import { readFile } from "node:fs/promises";
import type { CsvOptions, LoadedDataset } from "../api.js";
import { createCsvParser } from "../csv.js";
import { parseCsvSchema } from "../csv-schema.js";
import { DatasetFileError } from "../errors.js";
import { forEachTextLine } from "./read-file.js";

/** Options of {@link loadCsv}: `CsvOptions`, with the schema also given as a JSON file path. */
export interface CsvFileOptions extends Omit<CsvOptions, "schema"> {
  readonly schema?: CsvOptions["schema"] | string;
}

/**
 * Loads a CSV file (optionally gzipped), streaming, with a schema (an object, or the path of a JSON schema
 * file, see `parseCsvSchema`) or inferred categories. Rules as in `createCsvParser`. O(characters).
 */
export async function loadCsv(path: string, options: CsvFileOptions = {}): Promise<LoadedDataset> {
  const where = "loadCsv";
  const given = options.schema;
  let schema: CsvOptions["schema"];
  if (typeof given === "string") {
    let text: string;
    try {
      text = await readFile(given, "utf8");
    } catch (error) {
      throw new DatasetFileError(
        where,
        given,
        `cannot read the schema file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
    }
    schema = parseCsvSchema(text, given);
  } else {
    schema = given;
  }
  const { schema: _ignored, ...rest } = options;
  const parser = createCsvParser(where, { ...rest, ...(schema ? { schema } : {}), fileName: path });
  await forEachTextLine(where, path, (line, lineNumber) => parser.line(line, lineNumber, path));
  return parser.finish([path]);
}
