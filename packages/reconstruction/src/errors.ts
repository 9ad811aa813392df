/**
 * Thrown when a reconstruction query, its views or its options are outside their
 * domain: messages name the function and the condition, with the offending value,
 * e.g. `maxEntropy: tolerance must be a finite number > 0 (got 0)`.
 */
export class InvalidQueryError extends RangeError {
  override readonly name = "InvalidQueryError";
}

/** @internal Throw an {@link InvalidQueryError}. */
export function fail(where: string, condition: string, got: unknown): never {
  const shown = Array.isArray(got)
    ? `[${got.join(", ")}]`
    : typeof got === "string"
      ? JSON.stringify(got)
      : String(got);
  throw new InvalidQueryError(`${where}: ${condition} (got ${shown})`);
}
