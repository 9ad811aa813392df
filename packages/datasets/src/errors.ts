import { CalmLdpError, fail, InvalidParameterError } from "@calm-ldp/errors";

export { fail };

/**
 * Input that does not follow its format. Names the function, the file, the 1-based line and the field
 * (a column name or a 1-based token position), so the offending byte can be found. A loader that throws
 * it returns nothing: there is never a partial load.
 */
export class MalformedDataError extends CalmLdpError {
  override readonly name: string = "MalformedDataError";

  constructor(
    /** The function that rejected the input, e.g. `loadAdult`. */
    readonly where: string,
    /** The file (or the name given for in-memory input). */
    readonly file: string,
    /** 1-based line number; 0 when the problem is not on one line (an empty file, a JSON schema). */
    readonly line: number,
    /** The field: a column name, `token 3`, or a JSON path; empty when the whole line is wrong. */
    readonly field: string,
    /** What is wrong, with the offending value. */
    readonly problem: string,
  ) {
    const at = line > 0 ? `${file}:${line}` : file;
    super(`${where}: ${at}${field ? `, field ${field}` : ""}: ${problem}`);
  }
}

/**
 * @internal A row of a fixed-width file must have `width` fields (`what` names them, e.g. "values"):
 * otherwise a {@link MalformedDataError} at its line, `expected 3 values, got 2`. O(1).
 */
export function checkRowWidth(
  where: string,
  file: string,
  lineNumber: number,
  width: number,
  fields: number,
  what: string,
): void {
  if (fields !== width)
    throw new MalformedDataError(where, file, lineNumber, "", `expected ${width} ${what}, got ${fields}`);
}

/** A `--data` spec that cannot be parsed, or names an unknown kind or parameter: an {@link InvalidParameterError}. */
export class DataSpecError extends InvalidParameterError {
  override readonly name: string = "DataSpecError";
}

/** @internal Validates an optional attribute count d (integer >= 1). */
export function checkD(where: string, d: number | undefined): void {
  if (d !== undefined && !(Number.isSafeInteger(d) && d >= 1)) fail(where, "d must be an integer >= 1", d);
}

/** @internal Validates an optional category cap c (integer >= 2 or Infinity). */
export function checkC(where: string, c: number | undefined): void {
  if (c !== undefined && !(c === Number.POSITIVE_INFINITY || (Number.isSafeInteger(c) && c >= 2))) {
    fail(where, "c must be an integer >= 2 or Infinity", c);
  }
}

/** A dataset file or folder that cannot be found or read. */
export class DatasetFileError extends CalmLdpError {
  override readonly name: string = "DatasetFileError";

  constructor(
    readonly where: string,
    /** The path that was tried. */
    readonly file: string,
    problem: string,
  ) {
    super(`${where}: ${file}: ${problem}`);
  }
}
