import { CalmLdpError, CannotRunError, MalformedReportError } from "@calm-ldp/errors";

export { InvalidRecordError } from "@calm-ldp/calm-core";
export {
  CalmLdpError,
  CannotRunError,
  fail,
  InvalidParameterError,
  MalformedReportError,
} from "@calm-ldp/errors";

/**
 * A method refuses a setting before it starts because a table, an index or the
 * work would be too large. A {@link CannotRunError} (the class calm-core throws
 * when CALM cannot run), so one `instanceof CannotRunError` catches every refusal.
 * `needed` is the size the setting would need, `limit` the cap, `unit` what they
 * count ("cells", "coefficients", "operations", "users").
 */
export class MethodTooLargeError extends CannotRunError {
  override readonly name: string = "MethodTooLargeError";
  constructor(
    message: string,
    readonly needed: number,
    readonly limit: number,
    readonly unit: string,
  ) {
    super(message);
  }
}

/**
 * A query the method cannot answer from what it collected, e.g. a t-way query
 * with t > k for AM and the Marg methods (they only hold k-way marginals), or a
 * query with more attributes than InpHT's coefficients cover.
 */
export class UnsupportedQueryError extends CalmLdpError {
  override readonly name: string = "UnsupportedQueryError";
}

/** @internal Throw a MalformedReportError ("value" problem) naming the function. */
export function malformed(where: string, detail: string): never {
  throw new MalformedReportError(`${where}: ${detail}; nothing was counted`, "value");
}

/** @internal Refuse with a {@link MethodTooLargeError}. */
export function tooLarge(where: string, what: string, needed: number, limit: number, unit: string): never {
  throw new MethodTooLargeError(
    `${where}: ${what} needs ${formatCount(needed)} ${unit}, above the limit of ${formatCount(limit)}`,
    needed,
    limit,
    unit,
  );
}

function formatCount(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const log2 = Math.log2(x);
  const pow = Number.isInteger(log2) && x >= 1024 ? ` (2^${log2})` : "";
  return `${x.toLocaleString("en-US")}${pow}`;
}
