export type * from "./api.js";
export { InvalidQueryError } from "./errors.js";
export { fitIpf } from "./ipf.js";
export { maxEntropy } from "./max-entropy.js";
export { randomPairViews } from "./random-pair-views.js";
