import { InvalidParameterError } from "./errors.js";

/**
 * A value as error messages show it: strings quoted (`"abc"`), bigints with their
 * suffix (`3n`), arrays element by element (`[1, 2, "x"]`), typed arrays and other
 * array views by type and length (`Float64Array(1024)`, their contents may be
 * large), anything else with `String`. O(size of an array argument).
 */
export function formatValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint") return `${value}n`;
  if (Array.isArray(value)) return `[${value.map(formatValue).join(", ")}]`;
  if (ArrayBuffer.isView(value)) {
    const length = (value as unknown as { length?: number }).length ?? value.byteLength;
    return `${value.constructor.name}(${length})`;
  }
  return String(value);
}

/** The house message: `<where>: <condition> (got <value>)`. */
export function invalidMessage(where: string, condition: string, got: unknown): string {
  return `${where}: ${condition} (got ${formatValue(got)})`;
}

/**
 * Throw an {@link InvalidParameterError} in the house format, e.g.
 * `fail("uniformInt", "n must be an integer >= 1", 0)` throws
 * `uniformInt: n must be an integer >= 1 (got 0)`.
 */
export function fail(where: string, condition: string, got: unknown): never {
  throw new InvalidParameterError(invalidMessage(where, condition, got));
}
