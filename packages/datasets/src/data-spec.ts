import type { DataSpec } from "./api.js";
import { DataSpecError } from "./errors.js";

/** The kinds a `--data` spec may name. */
export const DATA_SPEC_KINDS = [
  "synthetic",
  "adult",
  "nltcs",
  "transactions",
  "msnbc",
  "movielens",
  "csv",
] as const;

const PARAMETERS: Record<string, readonly string[]> = {
  "synthetic-iid": ["p", "cardinality", "probs"],
  "synthetic-bn": ["strength", "parents", "cardinality", "seed", "base"],
  adult: ["partition", "attributes"],
  nltcs: [],
  transactions: ["format"],
  msnbc: [],
  movielens: ["top"],
  csv: ["schema", "header", "delimiter", "maxCategories"],
};

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/**
 * Parses a `--data` string into a {@link DataSpec}:
 * `synthetic:iid[?p=<P(1)>[,<P(1)>...]|&cardinality=<c>|&probs=<p0>,<p1>,...]`,
 * `synthetic:bn[?strength=<0..1>&parents=<max parents>&cardinality=<c>&seed=<x>&base=random|uniform]`,
 * `adult:<dir or file>[?partition=binary|capped&attributes=<a,b,...>|classification]`, `nltcs:<file>`,
 * `transactions:<file>[?format=auto|fimi|spmf]`, `msnbc:<file>`, `movielens:<dir>[?top=<movies per genre>]`,
 * `csv:<file>[?schema=<json file>&header=true|false&delimiter=<char>|tab&maxCategories=<m>]`.
 * The kind ends at the first `:`, the path at the first `?` (paths containing `?` are not supported);
 * parameters are URL-encoded (`%2C` etc. decode). Unknown kinds or parameters, repeated parameters and bad
 * values throw `DataSpecError` naming the parameter and the value. O(length).
 */
export function parseDataSpec(text: string): DataSpec {
  const bad = (problem: string): never => {
    throw new DataSpecError(`parseDataSpec: ${problem} (in ${JSON.stringify(text)})`);
  };
  const { key, main, query } = splitSpec(text.trim(), bad);
  const read = specParameters(key, query, bad);
  switch (key) {
    case "synthetic-iid":
      return syntheticIidSpec(read, bad);
    case "synthetic-bn":
      return syntheticBnSpec(read);
    case "adult":
      return adultSpec(main, read, bad);
    case "nltcs":
    case "msnbc":
      return { kind: key, path: main };
    case "movielens": {
      const top = read.number("top", (v) => Number.isSafeInteger(v) && v >= 1, "an integer >= 1");
      return { kind: "movielens", path: main, ...(top !== undefined ? { top } : {}) };
    }
    case "transactions":
      return {
        kind: "transactions",
        path: main,
        format: read.choice("format", ["auto", "fimi", "spmf"]) ?? "auto",
      };
    default:
      return csvSpec(main, read, bad);
  }
}

type Bad = (problem: string) => never;

/**
 * Step 1: the kind (up to the first `:`), the path or synthetic model (up to the
 * first `?`), and the query string; `key` names the parameter set
 * (`synthetic-iid`, `synthetic-bn`, or the kind). O(length).
 */
function splitSpec(trimmed: string, bad: Bad): { key: string; main: string; query: string } {
  const colon = trimmed.indexOf(":");
  if (colon < 0) bad(`expected <kind>:<...> with kind one of ${DATA_SPEC_KINDS.join(", ")}`);
  const kind = trimmed.slice(0, colon);
  if (!(DATA_SPEC_KINDS as readonly string[]).includes(kind))
    bad(`unknown kind ${JSON.stringify(kind)}; expected one of ${DATA_SPEC_KINDS.join(", ")}`);
  const rest = trimmed.slice(colon + 1);
  const question = rest.indexOf("?");
  const main = question < 0 ? rest : rest.slice(0, question);
  const query = question < 0 ? "" : rest.slice(question + 1);
  if (kind === "synthetic") {
    if (main !== "iid" && main !== "bn")
      bad(`synthetic data must be "synthetic:iid" or "synthetic:bn" (got ${JSON.stringify(main)})`);
    return { key: `synthetic-${main}`, main, query };
  }
  if (main === "") bad(`${kind}: expected a path after "${kind}:"`);
  return { key: kind, main, query };
}

/** Typed readers of a spec's parameters; each returns undefined when the parameter is absent. */
interface SpecParameters {
  get(name: string): string | undefined;
  number(name: string, check: (v: number) => boolean, condition: string): number | undefined;
  numbers(name: string, check: (v: number) => boolean, condition: string): number[] | undefined;
  choice<T extends string>(name: string, choices: readonly T[]): T | undefined;
}

/**
 * Step 2: the URL-decoded parameters, each allowed for `key` and given once, with
 * readers that reject bad values naming the parameter. O(length).
 */
function specParameters(key: string, query: string, bad: Bad): SpecParameters {
  const params = new Map<string, string>();
  if (query !== "") {
    for (const [name, value] of new URLSearchParams(query)) {
      if (!PARAMETERS[key]!.includes(name)) {
        const allowed = PARAMETERS[key]!.length ? PARAMETERS[key]!.join(", ") : "none";
        bad(`unknown parameter ${JSON.stringify(name)} for ${key} (allowed: ${allowed})`);
      }
      if (params.has(name)) bad(`parameter ${JSON.stringify(name)} given twice`);
      params.set(name, value);
    }
  }
  return {
    get: (name) => params.get(name),
    number(name, check, condition) {
      const raw = params.get(name);
      if (raw === undefined) return undefined;
      const value = Number(raw);
      if (!NUMBER.test(raw.trim()) || !check(value))
        bad(`${name} must be ${condition} (got ${JSON.stringify(raw)})`);
      return value;
    },
    numbers(name, check, condition) {
      const raw = params.get(name);
      if (raw === undefined) return undefined;
      return raw.split(",").map((item) => {
        const value = Number(item);
        if (!NUMBER.test(item.trim()) || !check(value))
          bad(`${name} must be a comma-separated list of ${condition} (got ${JSON.stringify(raw)})`);
        return value;
      });
    },
    choice<T extends string>(name: string, choices: readonly T[]): T | undefined {
      const raw = params.get(name);
      if (raw === undefined) return undefined;
      if (!(choices as readonly string[]).includes(raw))
        bad(`${name} must be one of ${choices.join(", ")} (got ${JSON.stringify(raw)})`);
      return raw as T;
    },
  };
}

const probability = (v: number) => v >= 0 && v <= 1;
const cardinality = (v: number) => Number.isSafeInteger(v) && v >= 2 && v <= 65536;

/** `synthetic:iid`: p (binary P(1) per attribute) or probs (one categorical law), and the cardinality. */
function syntheticIidSpec(read: SpecParameters, bad: Bad): DataSpec {
  const p = read.numbers("p", probability, "probabilities in [0, 1]");
  const c = read.number("cardinality", cardinality, "an integer in [2, 65536]");
  const probs = read.numbers("probs", (v) => v >= 0 && Number.isFinite(v), "non-negative numbers");
  if (p && c !== undefined && c !== 2)
    bad("p (P(1) of binary attributes) needs cardinality 2; use probs for more categories");
  if (p && probs) bad("give p or probs, not both");
  if (probs) {
    if (probs.length < 2) bad("probs needs at least 2 entries");
    if (c !== undefined && probs.length !== c)
      bad(`probs must have cardinality = ${c} entries (got ${probs.length})`);
    const total = probs.reduce((s, v) => s + v, 0);
    if (Math.abs(total - 1) > 1e-9) bad(`probs must sum to 1 (got ${total})`);
  }
  return {
    kind: "synthetic-iid",
    ...(p ? { p } : {}),
    ...(c !== undefined ? { cardinality: c } : probs ? { cardinality: probs.length } : {}),
    ...(probs ? { distribution: probs } : {}),
  };
}

/** `synthetic:bn`: strength, parents, cardinality, base and seed, with their defaults. */
function syntheticBnSpec(read: SpecParameters): DataSpec {
  const c = read.number("cardinality", cardinality, "an integer in [2, 65536]");
  const seed = read.number("seed", (v) => Number.isSafeInteger(v) && v >= 0, "a safe integer >= 0");
  return {
    kind: "synthetic-bn",
    strength: read.number("strength", probability, "a number in [0, 1]") ?? 0.5,
    parents: read.number("parents", (v) => Number.isSafeInteger(v) && v >= 0, "an integer >= 0") ?? 2,
    ...(c !== undefined ? { cardinality: c } : {}),
    base: read.choice("base", ["random", "uniform"] as const) ?? "random",
    ...(seed !== undefined ? { seed } : {}),
  };
}

/** `adult:<path>`: partition and the attribute list (names, or "classification"). */
function adultSpec(main: string, read: SpecParameters, bad: Bad): DataSpec {
  const partition = read.choice("partition", ["binary", "capped"] as const);
  const raw = read.get("attributes");
  let attributes: string[] | undefined;
  if (raw !== undefined) {
    attributes = raw === "classification" ? ["classification"] : raw.split(",").map((s) => s.trim());
    if (attributes.some((a) => a === ""))
      bad(
        `attributes must be a comma-separated list of names or "classification" (got ${JSON.stringify(raw)})`,
      );
  }
  return {
    kind: "adult",
    path: main,
    ...(partition ? { partition } : {}),
    ...(attributes ? { attributes } : {}),
  };
}

/** `csv:<path>`: schema file, header, delimiter (one character or "tab") and maxCategories. */
function csvSpec(main: string, read: SpecParameters, bad: Bad): DataSpec {
  const schema = read.get("schema");
  if (schema === "") bad("schema must be a file path");
  const header = read.choice("header", ["true", "false"] as const);
  let delimiter = read.get("delimiter");
  if (delimiter === "tab") delimiter = "\t";
  if (delimiter !== undefined && (delimiter.length !== 1 || delimiter === '"'))
    bad(`delimiter must be one character or "tab" (got ${JSON.stringify(delimiter)})`);
  const maxCategories = read.number(
    "maxCategories",
    (v) => Number.isSafeInteger(v) && v >= 2,
    "an integer >= 2",
  );
  return {
    kind: "csv",
    path: main,
    ...(schema !== undefined ? { schema } : {}),
    ...(header !== undefined ? { header: header === "true" } : {}),
    ...(delimiter !== undefined ? { delimiter } : {}),
    ...(maxCategories !== undefined ? { maxCategories } : {}),
  };
}

/**
 * The canonical text of a spec (parameters in a fixed order, defaults of `synthetic:bn` spelled out), for
 * `info.source` and run records; `parseDataSpec(formatDataSpec(s))` equals `s`. O(length).
 */
export function formatDataSpec(spec: DataSpec): string {
  const query = (pairs: [string, string | number | undefined][]) => {
    const present = pairs.filter(([, value]) => value !== undefined);
    return present.length === 0
      ? ""
      : `?${present.map(([name, value]) => `${name}=${encodeURIComponent(String(value)).replace(/%2C/g, ",")}`).join("&")}`;
  };
  switch (spec.kind) {
    case "synthetic-iid":
      return `synthetic:iid${query([
        ["p", spec.p?.join(",")],
        ["cardinality", spec.cardinality],
        ["probs", spec.distribution?.join(",")],
      ])}`;
    case "synthetic-bn":
      return `synthetic:bn${query([
        ["strength", spec.strength],
        ["parents", spec.parents],
        ["cardinality", spec.cardinality],
        ["base", spec.base],
        ["seed", spec.seed],
      ])}`;
    case "adult":
      return `adult:${spec.path}${query([
        ["partition", spec.partition],
        ["attributes", spec.attributes?.join(",")],
      ])}`;
    case "nltcs":
    case "msnbc":
      return `${spec.kind}:${spec.path}`;
    case "movielens":
      return `movielens:${spec.path}${query([["top", spec.top]])}`;
    case "transactions":
      return `transactions:${spec.path}${query([["format", spec.format === "auto" ? undefined : spec.format]])}`;
    case "csv":
      return `csv:${spec.path}${query([
        ["schema", spec.schema],
        ["header", spec.header === undefined ? undefined : String(spec.header)],
        ["delimiter", spec.delimiter === "\t" ? "tab" : spec.delimiter],
        ["maxCategories", spec.maxCategories],
      ])}`;
  }
}
