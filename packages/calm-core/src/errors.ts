import { InvalidParameterError } from "@calm-ldp/errors";

/**
 * CALM throws the classes of `@calm-ldp/errors`: `InvalidParameterError` (eps <= 0,
 * k > d, theta <= 0, ...), `CannotRunError` (the plan cannot run at this size,
 * e.g. fewer users than views; says what it would need) and `MalformedReportError`
 * (a report that does not fit the plan: unknown view, cell out of range, wrong
 * oracle; nothing is counted).
 */
export { CannotRunError, InvalidParameterError, MalformedReportError } from "@calm-ldp/errors";

/**
 * A record outside the plan's schema (wrong length, value out of range); nothing
 * is reported. An {@link InvalidParameterError} that says the record, not an
 * option, is at fault.
 */
export class InvalidRecordError extends InvalidParameterError {
  override readonly name: string = "InvalidRecordError";
}

/** @internal Throws `InvalidParameterError("<where>: <condition> (got <value>)")`. */
export { fail as invalid } from "@calm-ldp/errors";
