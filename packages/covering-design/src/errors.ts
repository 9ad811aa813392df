import { CannotRunError } from "@calm-ldp/errors";

export { fail, InvalidParameterError } from "@calm-ldp/errors";

/**
 * Thrown when a requested design is too large to build or to check here (the
 * message gives the size). A {@link CannotRunError}, like every refusal by size.
 */
export class DesignTooLargeError extends CannotRunError {
  override readonly name: string = "DesignTooLargeError";
}
