/** Thrown when a covering-design function gets a parameter outside its domain. */
export class InvalidParameterError extends RangeError {
  override readonly name = "InvalidParameterError";
}

/** Thrown when a requested design is too large to build or to check here (the message gives the size). */
export class DesignTooLargeError extends RangeError {
  override readonly name = "DesignTooLargeError";
}

/** @internal */
export function fail(where: string, condition: string, got: unknown): never {
  throw new InvalidParameterError(`${where}: ${condition} (got ${formatValue(got)})`);
}

function formatValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint") return `${value}n`;
  if (Array.isArray(value)) return JSON.stringify(value);
  return String(value);
}
