import { InvalidParameterError } from "@calm-ldp/errors";

export { fail, InvalidParameterError } from "@calm-ldp/errors";

/**
 * Thrown when an analysis gets an input or option outside its domain, e.g.
 * `chiSquareQuantile: p must be in (0, 1) (got 1.5)`.
 * @deprecated The same class as {@link InvalidParameterError} (`@calm-ldp/errors`); use that name.
 */
export const InvalidAnalysisError = InvalidParameterError;
/** @deprecated Use {@link InvalidParameterError}. */
export type InvalidAnalysisError = InvalidParameterError;
