import type { CsvAttributeSpec, CsvSchema } from "./api.js";
import { MalformedDataError } from "./errors.js";

const TYPES = ["nominal", "ordinal", "numeric"] as const;
const KEYS = new Set(["name", "labels", "type", "column"]);

/**
 * Validates a CSV schema, given as JSON text or an already parsed value:
 * `{"attributes": [{"name": "sex", "labels": ["F", "M"]}, {"name": "age", "type": "numeric"}, ...]}`.
 * Each attribute has a non-empty unique `name`; optional `labels` (>= 2 distinct strings), `type`
 * (`nominal` | `ordinal` | `numeric`; `numeric` takes no labels) and `column` (header name or 0-based
 * index). A `Schema` from @calm-ldp/marginal-algebra is a valid CSV schema. Throws `MalformedDataError`
 * naming the file and the JSON path of the offending field. O(size).
 */
export function parseCsvSchema(input: string | unknown, fileName = "<schema>"): CsvSchema {
  const where = "parseCsvSchema";
  const bad = (field: string, problem: string): never => {
    throw new MalformedDataError(where, fileName, 0, field, problem);
  };
  let value: unknown = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch (error) {
      bad("", `not valid JSON (${(error as Error).message})`);
    }
  }
  if (
    typeof value !== "object" ||
    value === null ||
    !Array.isArray((value as { attributes?: unknown }).attributes)
  ) {
    bad("attributes", 'expected an object with an "attributes" array');
  }
  const list = (value as { attributes: unknown[] }).attributes;
  if (list.length === 0) bad("attributes", "expected at least one attribute");
  const names = new Set<string>();
  const attributes: CsvAttributeSpec[] = list.map((item, i) => {
    const path = `attributes[${i}]`;
    if (typeof item !== "object" || item === null || Array.isArray(item)) bad(path, "expected an object");
    const entry = item as Record<string, unknown>;
    for (const key of Object.keys(entry)) {
      if (!KEYS.has(key)) bad(`${path}.${key}`, `unknown key (allowed: ${[...KEYS].join(", ")})`);
    }
    const { name, labels, type, column } = entry;
    if (typeof name !== "string" || name === "") bad(`${path}.name`, "expected a non-empty string");
    if (names.has(name as string)) bad(`${path}.name`, `duplicate attribute name ${JSON.stringify(name)}`);
    names.add(name as string);
    if (type !== undefined && !TYPES.includes(type as (typeof TYPES)[number])) {
      bad(`${path}.type`, `expected one of ${TYPES.join(", ")} (got ${JSON.stringify(type)})`);
    }
    if (labels !== undefined) {
      if (type === "numeric") bad(`${path}.labels`, 'a "numeric" attribute takes no labels');
      if (!Array.isArray(labels) || labels.length < 2 || labels.some((label) => typeof label !== "string")) {
        bad(`${path}.labels`, "expected an array of at least 2 strings");
      }
      if (new Set(labels as string[]).size !== (labels as string[]).length)
        bad(`${path}.labels`, "labels must be distinct");
    }
    if (
      column !== undefined &&
      !(typeof column === "string" || (Number.isSafeInteger(column) && (column as number) >= 0))
    ) {
      bad(`${path}.column`, `expected a header name or a 0-based index (got ${JSON.stringify(column)})`);
    }
    return {
      name: name as string,
      ...(labels === undefined ? {} : { labels: [...(labels as string[])] }),
      ...(type === undefined ? {} : { type: type as CsvAttributeSpec["type"] & string }),
      ...(column === undefined ? {} : { column: column as string | number }),
    };
  });
  return { attributes };
}
