import { InvalidParameterError } from "@calm-ldp/errors";

export { fail, InvalidParameterError } from "@calm-ldp/errors";

/**
 * Thrown when a reconstruction query, its views or its options are outside their
 * domain, e.g. `maxEntropy: tolerance must be a finite number > 0 (got 0)`.
 * @deprecated The same class as {@link InvalidParameterError} (`@calm-ldp/errors`); use that name.
 */
export const InvalidQueryError = InvalidParameterError;
/** @deprecated Use {@link InvalidParameterError}. */
export type InvalidQueryError = InvalidParameterError;
