import type { BinaryMatrixOptions, LoadedDataset } from "./api.js";
import { CodeBuffer } from "./column-builder.js";
import { checkRowWidth, fail, MalformedDataError } from "./errors.js";
import { finishDataset, type RawAttribute } from "./finish-dataset.js";
import { forEachLine } from "./line-splitter.js";

/** A push-based parser of text lines that builds a dataset at the end. */
export interface LineParser {
  /** One line (no terminator) with its 1-based number in `file`. */
  line(text: string, lineNumber: number, file: string): void;
  finish(options?: BinaryMatrixOptions, files?: readonly string[]): LoadedDataset;
}

const SEPARATOR = /[,\s]+/;

/**
 * Parser of 0/1 matrices, one record per line, values separated by commas or blanks (NLTCS: `nltcs.csv`,
 * with a header row and CRLF, and the Lowd-Davis `nltcs.*.data`, without). A first line holding any token
 * other than 0/1 is a header and is skipped. Every record must have as many values as the first; a value
 * other than 0 or 1, or a different count, throws `MalformedDataError` naming the file, line and field
 * (1-based column). Blank lines are skipped. Attribute i is named `${namePrefix}${i}`. O(characters).
 */
export function createBinaryMatrixParser(where = "parseBinaryMatrix"): LineParser {
  let width = -1;
  let columns: CodeBuffer[] = [];
  let rows = 0;
  let header: string | undefined;
  let sawLine = false;
  return {
    line(text, lineNumber, file) {
      const trimmed = text.trim();
      if (trimmed === "") return;
      const fields = trimmed.split(SEPARATOR);
      if (!sawLine) {
        sawLine = true;
        if (fields.some((field) => field !== "0" && field !== "1")) {
          header = trimmed;
          width = fields.length;
          columns = fields.map(() => new CodeBuffer(1 << 14));
          return;
        }
      }
      if (width < 0) {
        width = fields.length;
        columns = fields.map(() => new CodeBuffer(1 << 14));
      }
      checkRowWidth(where, file, lineNumber, width, fields.length, "values");
      for (let j = 0; j < width; j++) {
        const field = fields[j]!;
        if (field !== "0" && field !== "1") {
          throw new MalformedDataError(
            where,
            file,
            lineNumber,
            `column ${j + 1}`,
            `expected 0 or 1 (got ${JSON.stringify(field)})`,
          );
        }
        columns[j]!.push(field === "1" ? 1 : 0);
      }
      rows++;
    },
    finish(options = {}, files = ["<input>"]) {
      if (rows === 0) throw new MalformedDataError(where, files.join(", "), 0, "", "no records found");
      if (options.d !== undefined && options.d > width)
        fail(where, `d must be <= ${width} (the columns in the file)`, options.d);
      const prefix = options.namePrefix ?? "nltcs";
      const attributes: RawAttribute[] = columns.map((_, i) => ({
        name: `${prefix}${i}`,
        labels: ["0", "1"],
        kind: "binary",
      }));
      return finishDataset(
        {
          attributes,
          columns: columns.map((column) => Uint8Array.from(column.view())),
          rows,
          source: `nltcs:${files.join(",")}`,
          files,
          rowsRead: rows,
          drops: [],
          preprocessing: [
            `read ${width} binary columns in file order${header === undefined ? "" : ` (header line skipped: ${JSON.stringify(header.slice(0, 60))})`}`,
          ],
        },
        where,
        options.d === undefined ? {} : { d: options.d },
      );
    },
  };
}

/** Parses an in-memory 0/1 matrix (NLTCS layout). See {@link createBinaryMatrixParser}. O(characters). */
export function parseBinaryMatrix(text: string, options: BinaryMatrixOptions = {}): LoadedDataset {
  const parser = createBinaryMatrixParser("parseBinaryMatrix");
  const file = options.fileName ?? "<input>";
  forEachLine(text, (line, lineNumber) => parser.line(line, lineNumber, file));
  return parser.finish(options, [file]);
}
