import { InvalidParameterError } from "@calm-ldp/errors";

export { fail, InvalidParameterError } from "@calm-ldp/errors";

/**
 * Thrown when a schema, record, record store, table or option is outside its
 * domain, e.g. `createSchema: cardinality must be an integer >= 2 (got 1)`.
 * @deprecated The same class as {@link InvalidParameterError} (`@calm-ldp/errors`); use that name.
 */
export const InvalidInputError = InvalidParameterError;
/** @deprecated Use {@link InvalidParameterError}. */
export type InvalidInputError = InvalidParameterError;
