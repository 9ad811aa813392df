export type { CoveringDesignOptions, CoveringDesignResult } from "./api.js";
export {
  clearCoveringDesignCache,
  coverDesignSize,
  coveringDesign,
  DEFAULT_COVERING_ITERATIONS,
  DEFAULT_COVERING_SEED,
  describeCoveringDesign,
  exactCovering,
} from "./design.js";
export { DesignTooLargeError, InvalidParameterError } from "./errors.js";
export { schonheimBound } from "./schonheim.js";
export { countUncovered, verify } from "./verify.js";
