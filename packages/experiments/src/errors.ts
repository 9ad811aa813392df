import { InvalidParameterError } from "@calm-ldp/errors";

export { InvalidParameterError } from "@calm-ldp/errors";

/**
 * An experiment configuration outside its domain (no methods, reps < 1, unknown method, ...).
 * @deprecated The same class as {@link InvalidParameterError} (`@calm-ldp/errors`); use that name.
 */
export const InvalidExperimentError = InvalidParameterError;
/** @deprecated Use {@link InvalidParameterError}. */
export type InvalidExperimentError = InvalidParameterError;

/** @internal Throws an InvalidParameterError; objects are shown as JSON. */
export function invalid(where: string, condition: string, got: unknown): never {
  throw new InvalidParameterError(
    `${where}: ${condition} (got ${typeof got === "string" ? JSON.stringify(got) : (JSON.stringify(got) ?? String(got))})`,
  );
}
