/**
 * Thrown when an analysis gets an input or option outside its domain: messages name
 * the function and the violated condition with the offending value, e.g.
 * `chiSquareQuantile: p must be in (0, 1) (got 1.5)`.
 */
export class InvalidAnalysisError extends RangeError {
  override readonly name = "InvalidAnalysisError";
}

/** @internal Throw an {@link InvalidAnalysisError} naming `where`, the condition and the offending value. */
export function fail(where: string, condition: string, got: unknown): never {
  throw new InvalidAnalysisError(`${where}: ${condition} (got ${show(got)})`);
}

function show(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(show).join(", ")}]`;
  if (ArrayBuffer.isView(value))
    return `${value.constructor.name}(${(value as unknown as ArrayLike<number>).length})`;
  return String(value);
}
