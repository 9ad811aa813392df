/**
 * Thrown when a schema, record, record store, table or option is outside its
 * domain. Messages name the function and the violated condition with the offending
 * value, e.g. `createSchema: cardinality must be an integer >= 2 (got 1)`.
 */
export class InvalidInputError extends RangeError {
  override readonly name = "InvalidInputError";
}

/** @internal Throw an {@link InvalidInputError} naming `where`, the condition and the offending value. */
export function fail(where: string, condition: string, got: unknown): never {
  throw new InvalidInputError(`${where}: ${condition} (got ${formatValue(got)})`);
}

function formatValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint") return `${value}n`;
  if (Array.isArray(value)) return `[${value.map(formatValue).join(", ")}]`;
  if (ArrayBuffer.isView(value))
    return `${value.constructor.name}(${(value as unknown as ArrayLike<number>).length})`;
  return String(value);
}
