import type { AdultOptions, LoadedDataset } from "./api.js";
import { CodeBuffer } from "./column-builder.js";
import { checkRowWidth, fail, MalformedDataError } from "./errors.js";
import { finishDataset, type RawAttribute } from "./finish-dataset.js";
import { forEachLine } from "./line-splitter.js";
import { numericCategories } from "./numeric-categories.js";

/** One Adult column: numeric (an integer) or nominal with its documented domain (adult.names). */
interface AdultColumn {
  readonly name: string;
  readonly domain?: readonly string[];
}

const COLUMNS: readonly AdultColumn[] = [
  { name: "age" },
  {
    name: "workclass",
    domain: [
      "Private",
      "Self-emp-not-inc",
      "Self-emp-inc",
      "Federal-gov",
      "Local-gov",
      "State-gov",
      "Without-pay",
      "Never-worked",
    ],
  },
  { name: "fnlwgt" },
  {
    name: "education",
    domain: [
      "Bachelors",
      "Some-college",
      "11th",
      "HS-grad",
      "Prof-school",
      "Assoc-acdm",
      "Assoc-voc",
      "9th",
      "7th-8th",
      "12th",
      "Masters",
      "1st-4th",
      "10th",
      "Doctorate",
      "5th-6th",
      "Preschool",
    ],
  },
  { name: "education-num" },
  {
    name: "marital-status",
    domain: [
      "Married-civ-spouse",
      "Divorced",
      "Never-married",
      "Separated",
      "Widowed",
      "Married-spouse-absent",
      "Married-AF-spouse",
    ],
  },
  {
    name: "occupation",
    domain: [
      "Tech-support",
      "Craft-repair",
      "Other-service",
      "Sales",
      "Exec-managerial",
      "Prof-specialty",
      "Handlers-cleaners",
      "Machine-op-inspct",
      "Adm-clerical",
      "Farming-fishing",
      "Transport-moving",
      "Priv-house-serv",
      "Protective-serv",
      "Armed-Forces",
    ],
  },
  {
    name: "relationship",
    domain: ["Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried"],
  },
  { name: "race", domain: ["White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"] },
  { name: "sex", domain: ["Female", "Male"] },
  { name: "capital-gain" },
  { name: "capital-loss" },
  { name: "hours-per-week" },
  {
    name: "native-country",
    domain: [
      "United-States",
      "Cambodia",
      "England",
      "Puerto-Rico",
      "Canada",
      "Germany",
      "Outlying-US(Guam-USVI-etc)",
      "India",
      "Japan",
      "Greece",
      "South",
      "China",
      "Cuba",
      "Iran",
      "Honduras",
      "Philippines",
      "Italy",
      "Poland",
      "Jamaica",
      "Vietnam",
      "Mexico",
      "Portugal",
      "Ireland",
      "France",
      "Dominican-Republic",
      "Laos",
      "Ecuador",
      "Taiwan",
      "Haiti",
      "Columbia",
      "Hungary",
      "Guatemala",
      "Nicaragua",
      "Scotland",
      "Thailand",
      "Yugoslavia",
      "El-Salvador",
      "Trinadad&Tobago",
      "Peru",
      "Hong",
      "Holand-Netherlands",
    ],
  },
  { name: "income", domain: ["<=50K", ">50K"] },
];

/** The 15 Adult attributes, in file order (the order `d` selects from). */
export const ADULT_ATTRIBUTES: readonly string[] = COLUMNS.map((column) => column.name);

/**
 * The CALM paper's classification set (Section 5.4): the five features age, workclass, education,
 * education-num, occupation, and the label income (6 attributes, for 6-way marginals).
 */
export const ADULT_CLASSIFICATION_ATTRIBUTES: readonly string[] = [
  "age",
  "workclass",
  "education",
  "education-num",
  "occupation",
  "income",
];

const INTEGER = /^\d{1,10}$/;

/** A push-based Adult parser over the lines of one or more files (`adult.data`, `adult.test`). */
export interface AdultParser {
  line(text: string, lineNumber: number, file: string): void;
  finish(options?: AdultOptions, files?: readonly string[]): LoadedDataset;
}

/**
 * Parser of the UCI Adult format: 15 comma-separated fields per line (blanks around commas ignored), no
 * header; lines starting with `|` are comments (the UCI `adult.test` begins with one), blank lines are
 * skipped, and a first line starting with the field name `age` is taken as a header and skipped. A row with
 * a missing value `?` in any field is dropped (counted in `info.drops`; 48,842 -> 45,222 rows for the two
 * files). The test file's label period (`>50K.`) is removed. Numeric fields must be non-negative integers
 * and nominal fields one of the categories documented in `adult.names`; anything else, or a wrong field
 * count, throws `MalformedDataError` naming file, line and field. O(characters).
 *
 * At `finish`: nominal attributes keep their observed categories (documented order) and numeric ones
 * become ordered categories (distinct values ascending); then the first d attributes are kept and every
 * attribute is capped at c (see `capCategories`; numeric attributes always get quantile buckets).
 */
export function createAdultParser(where = "parseAdult"): AdultParser {
  const lookups = COLUMNS.map((column) =>
    column.domain ? new Map(column.domain.map((label, i) => [label, i])) : undefined,
  );
  const columns = COLUMNS.map(() => new CodeBuffer(1 << 16));
  const codes = new Uint32Array(COLUMNS.length);
  const filesSeen = new Set<string>();
  let rowsRead = 0;
  let missing = 0;
  let labelPeriods = 0;
  const headers: string[] = [];
  return {
    line(text, lineNumber, file) {
      const trimmed = text.trim();
      if (trimmed === "" || trimmed.startsWith("|")) return;
      const fields = trimmed.split(",");
      if (!filesSeen.has(file)) {
        filesSeen.add(file);
        if (fields[0]!.trim().toLowerCase() === "age") {
          headers.push(`${file}:${lineNumber}`);
          return;
        }
      }
      checkRowWidth(where, file, lineNumber, COLUMNS.length, fields.length, "comma-separated fields");
      rowsRead++;
      let hasMissing = false;
      for (let j = 0; j < COLUMNS.length; j++) {
        let field = fields[j]!.trim();
        if (field === "?") {
          hasMissing = true;
          continue;
        }
        const lookup = lookups[j];
        if (lookup === undefined) {
          if (!INTEGER.test(field) || Number(field) > 0xffffffff) {
            throw new MalformedDataError(
              where,
              file,
              lineNumber,
              COLUMNS[j]!.name,
              `expected a non-negative integer (got ${JSON.stringify(field)})`,
            );
          }
          codes[j] = Number(field);
        } else {
          if (j === COLUMNS.length - 1 && field.endsWith(".")) {
            field = field.slice(0, -1);
            labelPeriods++;
          }
          const code = lookup.get(field);
          if (code === undefined) {
            throw new MalformedDataError(
              where,
              file,
              lineNumber,
              COLUMNS[j]!.name,
              `not a category of ${COLUMNS[j]!.name} (got ${JSON.stringify(field)})`,
            );
          }
          codes[j] = code;
        }
      }
      if (hasMissing) {
        missing++;
        return;
      }
      for (let j = 0; j < COLUMNS.length; j++) columns[j]!.push(codes[j]!);
    },
    finish: (options = {}, files = [...filesSeen]) =>
      finishAdult(where, { columns, rowsRead, missing, labelPeriods, headers }, options, files),
  };
}

/** What an Adult parser read: the columns' codes and the counts its preprocessing reports. */
interface AdultRead {
  readonly columns: readonly CodeBuffer[];
  readonly rowsRead: number;
  readonly missing: number;
  readonly labelPeriods: number;
  readonly headers: readonly string[];
}

/**
 * The Adult dataset from what was read: the selected attributes (nominal ones
 * with their documented categories, numeric ones as ordered categories), then
 * `finishDataset`'s d and c reduction. O(rows x attributes).
 */
function finishAdult(
  where: string,
  read: AdultRead,
  options: AdultOptions,
  files: readonly string[],
): LoadedDataset {
  const names = options.attributes ?? ADULT_ATTRIBUTES;
  const order = names.map((name) => {
    const index = ADULT_ATTRIBUTES.indexOf(name);
    if (index < 0) fail(where, `attributes must be among ${ADULT_ATTRIBUTES.join(", ")}`, name);
    return index;
  });
  if (new Set(order).size !== order.length) fail(where, "attributes must not repeat", names.join(","));
  let c = options.c;
  if (options.partition === "binary") {
    if (c !== undefined && c !== 2) fail(where, 'c must be 2 (or absent) with partition "binary"', c);
    c = 2;
  }
  const rows = read.rowsRead - read.missing;
  const attributes: RawAttribute[] = [];
  const raw = order.map((j) => {
    const column = COLUMNS[j]!;
    const values = read.columns[j]!.view();
    if (column.domain) {
      attributes.push({ name: column.name, labels: column.domain, kind: "nominal" });
      return values;
    }
    const { labels, codes } = numericCategories(values);
    attributes.push({ name: column.name, labels, kind: "numeric" });
    return codes;
  });
  const preprocessing = [
    `dropped ${read.missing} rows with a missing value "?"`,
    ...(read.labelPeriods > 0
      ? [`removed the trailing "." of ${read.labelPeriods} income labels (adult.test)`]
      : []),
    ...(read.headers.length > 0 ? [`skipped header lines at ${read.headers.join(", ")}`] : []),
    ...(options.attributes ? [`attributes selected by name: ${names.join(", ")}`] : []),
    ...(options.partition === "binary"
      ? [
          "binary partition (CALM Section 5.4): every attribute reduced to 2 categories by the capping rule with c = 2",
        ]
      : []),
  ];
  return finishDataset(
    {
      attributes,
      columns: raw,
      rows,
      source: `adult:${files.join(",")}`,
      files,
      rowsRead: read.rowsRead,
      drops: [{ reason: 'missing value "?"', rows: read.missing }],
      preprocessing,
    },
    where,
    {
      ...(options.d === undefined ? {} : { d: options.d }),
      ...(c === undefined ? {} : { c }),
      ...(options.numericBuckets === undefined ? {} : { numericBuckets: options.numericBuckets }),
    },
  );
}

/**
 * Parses in-memory Adult files (e.g. uploads): `texts` maps a file name to its contents, read in the
 * given order. See {@link createAdultParser} for the format and the reduction rules. O(characters).
 */
export function parseAdult(
  texts: string | readonly { name: string; text: string }[],
  options: AdultOptions = {},
): LoadedDataset {
  const parser = createAdultParser("parseAdult");
  const inputs = typeof texts === "string" ? [{ name: options.fileName ?? "<input>", text: texts }] : texts;
  for (const input of inputs)
    forEachLine(input.text, (line, lineNumber) => parser.line(line, lineNumber, input.name));
  return parser.finish(
    options,
    inputs.map((input) => input.name),
  );
}
