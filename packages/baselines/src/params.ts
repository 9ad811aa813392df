import {
  type ProtocolParameters,
  type ProtocolPlan,
  type RecordStore,
  validateSchema,
} from "@calm-ldp/marginal-algebra";
import { binomialCoefficient } from "@calm-ldp/random";
import type { BaselinePlanVersion, SizeLimits } from "./api.js";
import { fail, InvalidRecordError, MethodTooLargeError, UnsupportedQueryError } from "./errors.js";

/** Largest eps accepted (the frequency oracles' cap). */
export const MAX_EPS = 20;
/** Default cap on cells of any table or index a method allocates (see `SizeLimits`). */
export const DEFAULT_MAX_CELLS = 2 ** 24;
/** Default cap on the elementary operations of one population run (see `SizeLimits`). */
export const DEFAULT_MAX_WORK = 2 ** 33;

/** @internal The limits with defaults filled in. */
export function limitsOf(options: SizeLimits): { maxCells: number; maxWork: number } {
  const maxCells = options.maxCells ?? DEFAULT_MAX_CELLS;
  const maxWork = options.maxWork ?? DEFAULT_MAX_WORK;
  if (!(maxCells >= 1)) fail("limits", "maxCells must be a number >= 1", maxCells);
  if (!(maxWork >= 1)) fail("limits", "maxWork must be a number >= 1", maxWork);
  return { maxCells, maxWork };
}

/**
 * @internal Validate the public parameters of a plan: a valid schema, n an integer
 * >= 1, eps finite in (0, 20], k an integer in [1, d]. Returns the cardinalities.
 */
export function checkParameters(where: string, parameters: ProtocolParameters): number[] {
  if (parameters == null || typeof parameters !== "object")
    fail(where, "parameters must be an object { schema, n, eps, k }", parameters);
  const { schema, n, eps, k } = parameters;
  validateSchema(schema, where);
  const d = schema.attributes.length;
  if (!Number.isSafeInteger(n) || n < 1) fail(where, "n must be an integer >= 1", n);
  if (typeof eps !== "number" || !(eps > 0 && eps <= MAX_EPS))
    fail(where, `eps must be a finite number in (0, ${MAX_EPS}]`, eps);
  if (!Number.isInteger(k) || k < 1 || k > d) fail(where, `k must be an integer in [1, d = ${d}]`, k);
  return schema.attributes.map((a) => a.labels.length);
}

/**
 * @internal What every plan builder starts with: `where` ("<method>.plan"), the
 * validated parameters' cardinalities and the size limits with their defaults. O(d).
 */
export function checkPlanInputs(
  method: string,
  parameters: ProtocolParameters,
  options: SizeLimits,
): { where: string; cardinalities: number[]; maxCells: number; maxWork: number } {
  const where = `${method}.plan`;
  const cardinalities = checkParameters(where, parameters);
  return { where, cardinalities, ...limitsOf(options) };
}

/** @internal Cardinalities of a plan's schema. */
export function planCardinalities(plan: ProtocolPlan): number[] {
  return plan.schema.attributes.map((a) => a.labels.length);
}

/** @internal Throw InvalidRecordError unless `record` has one valid value per attribute. O(d). */
export function checkRecord(
  where: string,
  record: ArrayLike<number>,
  cardinalities: readonly number[],
): void {
  const d = cardinalities.length;
  if (record == null || record.length !== d) {
    throw new InvalidRecordError(
      `${where}: a record must have ${d} values, one per schema attribute (got ${record?.length})`,
    );
  }
  for (let a = 0; a < d; a++) {
    const v = record[a]!;
    if (!Number.isInteger(v) || v < 0 || v >= cardinalities[a]!) {
      throw new InvalidRecordError(
        `${where}: value of attribute ${a} must be an integer in [0, ${cardinalities[a]}) (got ${v})`,
      );
    }
  }
}

/** @internal Throw InvalidRecordError unless the store has the plan's attributes and cardinalities. O(d). */
export function checkStore(where: string, store: RecordStore, cardinalities: readonly number[]): void {
  const d = cardinalities.length;
  if (store == null || !Array.isArray(store.columns) || store.columns.length !== d) {
    throw new InvalidRecordError(
      `${where}: the record store must have ${d} attributes like the plan's schema (got ${store?.columns?.length})`,
    );
  }
  for (let a = 0; a < d; a++) {
    const c = store.schema.attributes[a]?.labels.length;
    if (c !== cardinalities[a]) {
      throw new InvalidRecordError(
        `${where}: attribute ${a} has ${c} categories in the store, ${cardinalities[a]} in the plan`,
      );
    }
  }
}

/** @internal Whether `value` is an integer in [lo, hi) (a report's index fields). O(1). */
export function isIndex(value: unknown, lo: number, hi: number): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= lo && value < hi;
}

/** @internal Validate a query: distinct integer attributes in [0, d); returns them ascending. O(t log t). */
export function checkQuery(where: string, attributes: readonly number[], d: number): number[] {
  if (!Array.isArray(attributes) && !ArrayBuffer.isView(attributes))
    fail(where, "attributes must be an array of attribute indices", attributes);
  const sorted = Array.from(attributes).sort((x, y) => x - y);
  for (let i = 0; i < sorted.length; i++) {
    const a = sorted[i]!;
    if (!Number.isInteger(a) || a < 0 || a >= d)
      fail(where, `attribute indices must be integers in [0, ${d})`, attributes);
    if (i > 0 && sorted[i - 1] === a) fail(where, "attribute indices must be distinct", attributes);
  }
  return sorted;
}

/**
 * @internal Refuse a split of the users into one part per k-subset of the d
 * attributes (`what`: "groups", "marginals") when there are fewer users than parts.
 */
export function checkUsersPerPart(where: string, what: string, d: number, k: number, n: number): number {
  const parts = binomialCoefficient(d, k);
  if (parts > n) {
    throw new MethodTooLargeError(
      `${where}: C(${d}, ${k}) = ${parts.toLocaleString("en-US")} ${what} need at least as many users (n = ${n.toLocaleString("en-US")})`,
      parts,
      n,
      "users",
    );
  }
  return parts;
}

/** @internal Refuse a query of more than k attributes from a method that holds k-way marginals only. */
export function checkKWay(method: string, k: number, query: readonly number[]): void {
  if (query.length > k) {
    throw new UnsupportedQueryError(
      `${method}.query: this method holds ${k}-way marginals only and cannot answer a ${query.length}-way query`,
    );
  }
}

/**
 * @internal The fields every baseline plan starts with, in this order (the plan's
 * JSON, and so its fingerprint, depends on it): method, version 1, eps, n, k,
 * schema, and the bits of the binary encoding (a copy) or null. O(d).
 */
export function planBase<Method extends string, Bits extends readonly number[] | null>(
  method: Method,
  parameters: ProtocolParameters,
  bits: Bits,
): {
  method: Method;
  version: BaselinePlanVersion;
  eps: number;
  n: number;
  k: number;
  schema: ProtocolParameters["schema"];
  bits: Bits extends null ? null : number[];
} {
  const { eps, n, k, schema } = parameters;
  return { method, version: 1, eps, n, k, schema, bits: (bits === null ? null : [...bits]) as never };
}
