export type * from "./api.js";
export {
  chiSquareCdf,
  chiSquareQuantile,
  chiSquareSurvival,
  logGamma,
  regularizedGamma,
} from "./chi-square-distribution.js";
export { chiSquareIndependence } from "./chi-square-test.js";
export { chowLiuTree, treeWeight } from "./chow-liu.js";
export { InvalidAnalysisError } from "./errors.js";
export { groupCategories } from "./group-categories.js";
export { marginalModel } from "./marginal-model.js";
export { mutualInformation } from "./mutual-information.js";
export {
  independentPairStore,
  type RejectionRate,
  type RejectionRateConfig,
  rejectionRates,
} from "./noise-aware-calibration.js";
export {
  type NoiseAwareChiSquareOptions,
  type NoiseAwareChiSquareTest,
  noiseAwareChiSquare,
  type PrivateTwoWay,
} from "./noise-aware-chi-square.js";
export {
  type NoiseAwareGoodnessOfFit,
  noiseAwareGoodnessOfFit,
  type PrivateTable,
} from "./noise-aware-goodness-of-fit.js";
export { sampleMarginal } from "./sample-marginal.js";
export { sampleModel } from "./sample-model.js";
export { summarizeRows } from "./summarize-rows.js";
export { synopsisModel } from "./synopsis-model.js";
export { viewsModel } from "./views-model.js";
