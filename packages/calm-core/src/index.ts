export { CalmAggregator, createCalmAggregator } from "./aggregator.js";
export {
  CALM_PLAN_VERSION,
  type CalmPlan,
  type CalmPlanOptions,
  type CalmReport,
  type PlanView,
  type ViewOracleName,
} from "./api.js";
export {
  binomialCoefficient,
  chooseParameters,
  type ParameterCandidate,
  type ParameterChoice,
  type ParameterInputs,
} from "./choose-parameters.js";
export { type CalmReportOptions, calmReport } from "./client.js";
export { type CalmViewRuntime, calmReportWith, checkCalmRecord } from "./client-step.js";
export { CannotRunError, InvalidParameterError, InvalidRecordError, MalformedReportError } from "./errors.js";
export {
  type CalmAnswer,
  type CalmEstimateOptions,
  type CalmIntervalSynopsis,
  type CalmSynopsis,
  estimateCalm,
} from "./estimate.js";
export {
  type CalmPlusEstimateOptions,
  type CalmPlusJointOptions,
  type CalmPlusJointReport,
  type CalmPlusOrderShrinkage,
  type CalmPlusShrinkage,
  type CalmPlusSynopsis,
  estimateCalmPlus,
} from "./estimate-plus.js";
export { type ExpectedError, expectedQuerySse } from "./expected-error.js";
export {
  type CalmIntervalOptions,
  type CalmIntervalTable,
  type IntervalMethod,
  normalInterval,
} from "./interval.js";
export { analyticIntervalTable } from "./interval-table.js";
export { fitJoint, type JointFit, type JointFitOptions } from "./joint-fit.js";
export { adaptiveVarianceFactor, expectedViewCells, noiseError, samplingError } from "./noise-error.js";
export { normalCdf, normalQuantile, twoSidedZ } from "./normal-quantile.js";
export { adaptiveOracle, planCalm } from "./plan.js";
export {
  type CalmPlusProtocol,
  type CalmPlusProtocolOptions,
  type CalmProtocol,
  type CalmProtocolOptions,
  createCalmPlusProtocol,
  createCalmProtocol,
} from "./protocol.js";
export { viewOracles } from "./runtime.js";
export { type SimulateCalmOptions, type SimulationPath, simulateCalm } from "./simulate.js";
export { estimateCovariance } from "./view-covariance.js";
export { type SelectViewsOptions, selectViews, type ViewSelection } from "./view-selection.js";
