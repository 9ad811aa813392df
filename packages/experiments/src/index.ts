export type * from "./api.js";
export { validateConfig } from "./config.js";
export { toCsv } from "./csv.js";
export { createDataSource, type DataSource } from "./data-source.js";
export { InvalidExperimentError } from "./errors.js";
export {
  calmIntervalCoverage,
  type IntervalCoverage,
  type IntervalCoverageOptions,
} from "./interval-coverage.js";
export { defaultMethodFactory, HARNESS_METHOD_IDS } from "./methods.js";
export {
  type ErrorVsEpsOptions,
  errorVsEpsSpec,
  type FacetedLinesOptions,
  facetedLinesSpec,
  type HeatmapCell,
  type HeatmapOptions,
  heatmapSpec,
  type VegaLiteSpec,
} from "./plots.js";
export { type RunExperimentOptions, runExperiment } from "./run-experiment.js";
export { runPopulation } from "./run-method.js";
export { type RepetitionOptions, runRepetition, SEED_PATHS } from "./run-repetition.js";
export { summarize } from "./summarize.js";
