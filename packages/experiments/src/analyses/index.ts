/**
 * `@calm-ldp/experiments/analyses`: the figure runners of the analyses (CALM Fig. 6
 * classification, Cormode et al. Figs. 7 and 8 independence tests and Chow-Liu
 * trees) and `releaseMarginals`, on `@calm-ldp/analyses`' statistics. Node only
 * (the classification trains libsvm); the main entry stays browser-safe.
 */
export type * from "./api.js";
export { releaseMarginals } from "./release-marginals.js";
export { runChowLiu } from "./run-chow-liu.js";
export { runClassification } from "./run-classification.js";
export { runIndependenceTests } from "./run-independence.js";
