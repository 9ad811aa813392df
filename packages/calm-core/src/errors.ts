/** A CALM parameter, plan or input outside its domain (eps <= 0, k > d, theta <= 0, ...). */
export class InvalidParameterError extends RangeError {
  override readonly name = "InvalidParameterError";
}

/** The plan cannot run at this size (e.g. fewer users than views); says what it would need. */
export class CannotRunError extends RangeError {
  override readonly name = "CannotRunError";
}

/** A report that does not fit the plan (unknown view, cell out of range, wrong oracle); nothing is counted. */
export class MalformedReportError extends TypeError {
  override readonly name = "MalformedReportError";
}

/** A record outside the plan's schema (wrong length, value out of range); nothing is reported. */
export class InvalidRecordError extends RangeError {
  override readonly name = "InvalidRecordError";
}

/** @internal */
export function invalid(where: string, condition: string, got: unknown): never {
  throw new InvalidParameterError(
    `${where}: ${condition} (got ${typeof got === "string" ? JSON.stringify(got) : String(got)})`,
  );
}
