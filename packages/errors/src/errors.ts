/**
 * The base of every error a calm-ldp package throws on purpose: one
 * `instanceof CalmLdpError` tells a caller's bad input or a refused setting from
 * a bug. Messages name the function, the violated condition and the offending
 * value, e.g. `uniformInt: n must be an integer >= 1 (got 0)`.
 */
export class CalmLdpError extends Error {
  override readonly name: string = "CalmLdpError";
}

/**
 * A parameter, option or input outside its domain (eps <= 0, k > d, a schema
 * cardinality < 2, an unknown method id, ...). The one class every package throws
 * for this, so `instanceof InvalidParameterError` works across packages.
 */
export class InvalidParameterError extends CalmLdpError {
  override readonly name: string = "InvalidParameterError";
}

/**
 * A setting that is valid but cannot run here, refused before any work starts:
 * too few users for the views, a table or design too large. The message says the
 * size it would need.
 */
export class CannotRunError extends CalmLdpError {
  override readonly name: string = "CannotRunError";
}

/**
 * What is wrong with a rejected report, for callers that branch on it:
 * - `type`: not the report shape the reader produces (not a Uint8Array, wrong fields);
 * - `length`: wrong number of bytes or words;
 * - `magic`, `version`: not a calm-ldp report, or a format version this code does not read;
 * - `oracle`: produced by a different oracle or method (id mismatch);
 * - `fingerprint`: same id, different parameters (eps, domain, plan, ...);
 * - `view`: a view index that is not a view of the plan;
 * - `value`: the payload is out of range (value >= D, padding bits set, wrong subset size, ...);
 * - `batch`: a report batch from another oracle or with inconsistent sizes.
 */
export type MalformedReportProblem =
  | "type"
  | "length"
  | "magic"
  | "version"
  | "oracle"
  | "fingerprint"
  | "view"
  | "value"
  | "batch";

/**
 * A report (encoded bytes, a decoded report or a batch) that does not belong to
 * the oracle, plan or method asked to read or count it. Nothing is counted when
 * it is thrown; `problem` names the failed check.
 */
export class MalformedReportError extends CalmLdpError {
  override readonly name: string = "MalformedReportError";
  constructor(
    message: string,
    readonly problem: MalformedReportProblem,
  ) {
    super(message);
  }
}
