/** Thrown when a sampler or generator gets a parameter outside its domain. */
export class InvalidParameterError extends RangeError {
  override readonly name = "InvalidParameterError";
}

/** @internal */
export function fail(where: string, condition: string, got: unknown): never {
  throw new InvalidParameterError(`${where}: ${condition} (got ${formatValue(got)})`);
}

function formatValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint") return `${value}n`;
  return String(value);
}
