import type { Column } from "@calm-ldp/marginal-algebra";
import type { AttributeKind, CsvOptions, LoadedDataset } from "./api.js";
import { CodeBuffer } from "./column-builder.js";
import { splitCsvLine } from "./csv-fields.js";
import { checkRowWidth, fail, MalformedDataError } from "./errors.js";
import { finishDataset, type RawAttribute } from "./finish-dataset.js";
import { forEachLine } from "./line-splitter.js";
import { numericCategories } from "./numeric-categories.js";

const DEFAULT_MISSING = ["", "?", "NA"];

/** How one read attribute turns field text into a code. */
interface ColumnReader {
  readonly name: string;
  readonly index: number;
  readonly mode: "labels" | "infer" | "numeric";
  readonly kind: AttributeKind;
  readonly labels?: readonly string[];
  readonly lookup: Map<string, number>;
  readonly codes: CodeBuffer;
  numbers: Float64Array;
}

/** A push-based CSV parser. */
export interface CsvParser {
  line(text: string, lineNumber: number, file: string): void;
  finish(files?: readonly string[]): LoadedDataset;
}

function compareLabels(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Parser of a generic CSV file into categorical attributes.
 * - With a schema: only the schema's attributes are read, matched to columns by header name (`column`,
 *   default the attribute name) or 0-based index. Declared `labels` are the domain, kept in order even when
 *   a category has no records; a value outside them is malformed. `numeric` values must be finite numbers
 *   and become quantile buckets. Attributes without labels have inferred categories.
 * - Without a schema: every column, with inferred categories, named by the header (or `col0`, `col1`, ...).
 * Inferred categories are sorted (numerically when every value is a number, else by code unit) and treated
 * as nominal (as `ordinal` when the schema says so); a column with more than `maxCategories` distinct values
 * throws `MalformedDataError` at the line where the cap is exceeded. Rows with a `missing` token in a read
 * column are dropped and counted. A line with a different number of fields than the header (or the first
 * row) is malformed. O(characters).
 */
export function createCsvParser(where = "parseCsv", options: CsvOptions = {}): CsvParser {
  const { delimiter, maxCategories, header, missing } = csvSettings(where, options);
  const schema = options.schema;
  let width = -1;
  let readers: ColumnReader[] = [];
  let rowsRead = 0;
  let dropped = 0;
  const files: string[] = [];
  let rowCodes = new Float64Array(0);

  return {
    line(text, lineNumber, file) {
      if (files[files.length - 1] !== file) files.push(file);
      if (text.trim() === "") return;
      const fields = splitCsvLine(text, delimiter);
      if (typeof fields === "string") throw new MalformedDataError(where, file, lineNumber, "", fields);
      const at = { where, file, lineNumber };
      if (width < 0) {
        width = fields.length;
        readers = columnReaders(at, schema, header ? fields : undefined, width);
        rowCodes = new Float64Array(readers.length);
        if (header) return;
      }
      checkRowWidth(where, file, lineNumber, width, fields.length, "fields");
      rowsRead++;
      let hasMissing = false;
      for (let a = 0; a < readers.length; a++) {
        const code = fieldCode(at, readers[a]!, fields[readers[a]!.index]!, missing, maxCategories);
        if (code === undefined) hasMissing = true;
        else rowCodes[a] = code;
      }
      if (hasMissing) dropped++;
      else storeRow(readers, rowCodes);
    },
    finish(fileList = files.length ? files : [options.fileName ?? "<input>"]) {
      const rows = rowsRead - dropped;
      const finished = readers.map((reader) => finishColumn(reader, rows));
      if (width < 0) throw new MalformedDataError(where, fileList.join(", "), 0, "", "no lines found");
      return finishDataset(
        {
          attributes: finished.map((f) => f.attribute),
          columns: finished.map((f) => f.column),
          rows,
          source: `csv:${fileList.join(",")}`,
          files: fileList,
          rowsRead,
          drops: [
            {
              reason: `missing value (${[...missing].map((token) => JSON.stringify(token)).join(", ")})`,
              rows: dropped,
            },
          ],
          preprocessing: [
            schema
              ? `read ${readers.length} attributes of the schema (declared labels kept in order; other categories inferred)`
              : `read all ${readers.length} columns with inferred categories (sorted; at most ${maxCategories} distinct values each)`,
          ],
        },
        where,
        {
          ...(options.d === undefined ? {} : { d: options.d }),
          ...(options.c === undefined ? {} : { c: options.c }),
          ...(options.numericBuckets === undefined ? {} : { numericBuckets: options.numericBuckets }),
        },
      );
    },
  };
}

/** Where a line is, for errors. */
interface LineAt {
  readonly where: string;
  readonly file: string;
  readonly lineNumber: number;
}

/** Step 1: the parser's settings, checked (delimiter, maxCategories, header, missing tokens). O(1). */
function csvSettings(where: string, options: CsvOptions) {
  const delimiter = options.delimiter ?? ",";
  if (delimiter.length !== 1 || delimiter === '"' || delimiter === "\n" || delimiter === "\r") {
    fail(where, "delimiter must be one character other than a quote or a line break", delimiter);
  }
  const maxCategories = options.maxCategories ?? 256;
  if (!(Number.isSafeInteger(maxCategories) && maxCategories >= 2))
    fail(where, "maxCategories must be an integer >= 2", maxCategories);
  return {
    delimiter,
    maxCategories,
    header: options.header ?? true,
    missing: new Set(options.missing ?? DEFAULT_MISSING),
  };
}

function columnReader(
  name: string,
  index: number,
  mode: ColumnReader["mode"],
  kind: AttributeKind,
  labels?: readonly string[],
): ColumnReader {
  return {
    name,
    index,
    mode,
    kind,
    ...(labels ? { labels } : {}),
    lookup: new Map(labels?.map((label, i) => [label, i])),
    codes: new CodeBuffer(1 << 14),
    numbers: new Float64Array(mode === "numeric" ? 1 << 14 : 0),
  };
}

/**
 * Step 2, on the first line: the columns to read. Without a schema every column
 * (named by the header, or `col<i>`); with one, each schema attribute's column by
 * header name or index. O(width + schema attributes).
 */
function columnReaders(
  at: LineAt,
  schema: CsvOptions["schema"],
  names: readonly string[] | undefined,
  width: number,
): ColumnReader[] {
  const { where, file, lineNumber } = at;
  if (!schema)
    return Array.from({ length: width }, (_, i) =>
      columnReader(names?.[i] || `col${i}`, i, "infer", "nominal"),
    );
  return schema.attributes.map((spec) => {
    const column = spec.column ?? (names ? spec.name : undefined);
    let index: number;
    if (typeof column === "number") index = column;
    else if (column === undefined) index = schema.attributes.indexOf(spec);
    else {
      index = names!.indexOf(column);
      if (index < 0)
        throw new MalformedDataError(
          where,
          file,
          lineNumber,
          column,
          `schema attribute ${JSON.stringify(spec.name)}: no such column in the header`,
        );
      if (names!.indexOf(column, index + 1) >= 0)
        throw new MalformedDataError(
          where,
          file,
          lineNumber,
          column,
          "the header names this column more than once",
        );
    }
    if (index >= width) {
      throw new MalformedDataError(
        where,
        file,
        lineNumber,
        spec.name,
        `schema column index ${index} is beyond the ${width} columns of the file`,
      );
    }
    if (spec.type === "numeric") return columnReader(spec.name, index, "numeric", "numeric");
    const kind = spec.type === "ordinal" ? "ordinal" : "nominal";
    return spec.labels
      ? columnReader(spec.name, index, "labels", kind, spec.labels)
      : columnReader(spec.name, index, "infer", kind);
  });
}

/**
 * Step 3, per field: its code (a declared label's index, the number itself for a
 * numeric column, or an inferred category's first-seen index), or undefined for a
 * missing token. Throws for an undeclared label, a non-number, or one category
 * too many. O(1) expected.
 */
function fieldCode(
  at: LineAt,
  reader: ColumnReader,
  value: string,
  missing: ReadonlySet<string>,
  maxCategories: number,
): number | undefined {
  const { where, file, lineNumber } = at;
  if (reader.mode === "labels") {
    const code = reader.lookup.get(value);
    if (code !== undefined) return code;
    if (missing.has(value)) return undefined;
    throw new MalformedDataError(
      where,
      file,
      lineNumber,
      reader.name,
      `not one of the declared labels (got ${JSON.stringify(value)})`,
    );
  }
  if (missing.has(value)) return undefined;
  if (reader.mode === "numeric") {
    const number = Number(value);
    if (!Number.isFinite(number))
      throw new MalformedDataError(
        where,
        file,
        lineNumber,
        reader.name,
        `expected a finite number (got ${JSON.stringify(value)})`,
      );
    return number;
  }
  let code = reader.lookup.get(value);
  if (code === undefined) {
    if (reader.lookup.size >= maxCategories) {
      throw new MalformedDataError(
        where,
        file,
        lineNumber,
        reader.name,
        `more than maxCategories = ${maxCategories} distinct values (new value ${JSON.stringify(value)}); declare the column "numeric" in a schema file or raise maxCategories`,
      );
    }
    code = reader.lookup.size;
    reader.lookup.set(value, code);
  }
  return code;
}

/** Step 4: append a complete row's codes (numeric columns keep the number for bucketing). O(attributes) amortised. */
function storeRow(readers: readonly ColumnReader[], rowCodes: Float64Array): void {
  for (let a = 0; a < readers.length; a++) {
    const reader = readers[a]!;
    if (reader.mode === "numeric") {
      const at = reader.codes.length;
      if (at === reader.numbers.length) {
        const grown = new Float64Array(reader.numbers.length * 2);
        grown.set(reader.numbers);
        reader.numbers = grown;
      }
      reader.numbers[at] = rowCodes[a]!;
      reader.codes.push(0);
    } else {
      reader.codes.push(rowCodes[a]!);
    }
  }
}

/**
 * Step 5: one column's attribute and codes: declared labels as they are,
 * numeric values as quantile buckets, inferred categories sorted (numerically
 * when all are numbers) and the codes remapped. O(rows + categories log categories).
 */
function finishColumn(reader: ColumnReader, rows: number): { attribute: RawAttribute; column: Column } {
  const codes = reader.codes.view();
  if (reader.mode === "labels")
    return {
      attribute: { name: reader.name, labels: reader.labels!, kind: reader.kind, fixedDomain: true },
      column: codes,
    };
  if (reader.mode === "numeric") {
    const { labels, codes: ranks } = numericCategories(reader.numbers.subarray(0, rows));
    return { attribute: { name: reader.name, labels, kind: "numeric" }, column: ranks };
  }
  const found = [...reader.lookup.keys()];
  const numeric = found.every((label) => label.trim() !== "" && Number.isFinite(Number(label)));
  const sorted = [...found].sort(
    numeric ? (a, b) => Number(a) - Number(b) || compareLabels(a, b) : compareLabels,
  );
  const remap = new Uint32Array(found.length);
  sorted.forEach((label, i) => {
    remap[reader.lookup.get(label)!] = i;
  });
  for (let r = 0; r < codes.length; r++) codes[r] = remap[codes[r]!]!;
  return { attribute: { name: reader.name, labels: sorted, kind: reader.kind }, column: codes };
}

/** Parses an in-memory CSV text (an upload). See {@link createCsvParser}. O(characters). */
export function parseCsv(text: string, options: CsvOptions = {}): LoadedDataset {
  const parser = createCsvParser("parseCsv", options);
  const file = options.fileName ?? "<input>";
  forEachLine(text, (line, lineNumber) => parser.line(line, lineNumber, file));
  return parser.finish([file]);
}
