/** Thrown when a sampler or generator gets a parameter outside its domain (the one class of `@calm-ldp/errors`). */
export { fail, InvalidParameterError } from "@calm-ldp/errors";
