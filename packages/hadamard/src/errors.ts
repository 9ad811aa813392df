/** Thrown when a hadamard function gets a parameter outside its domain. */
export class InvalidParameterError extends RangeError {
  override readonly name = "InvalidParameterError";
}

/** @internal */
export function fail(where: string, condition: string, got: unknown): never {
  throw new InvalidParameterError(`${where}: ${condition} (got ${formatValue(got)})`);
}

function formatValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value) || ArrayBuffer.isView(value))
    return `[${Array.from(value as ArrayLike<number>).join(", ")}]`;
  return String(value);
}
