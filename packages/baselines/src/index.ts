export type { IntervalAnswer, IntervalOptions, IntervalTable } from "./analytic-interval.js";
export type * from "./api.js";
export {
  AttributeAggregator,
  attributeEstimate,
  attributePerUser,
  attributeReport,
  planAttributes,
} from "./attribute-kernel.js";
export {
  type BinaryCalmSynopsis,
  binaryCalmEstimate,
  binaryCalmPopulation,
  binaryCalmReport,
  planBinaryCalm,
} from "./binary-calm.js";
export { applyChannel, type ChannelAxis, invertChannel, type RunEmOptions, runEm } from "./em.js";
export {
  CalmLdpError,
  CannotRunError,
  InvalidParameterError,
  InvalidRecordError,
  MalformedReportError,
  MethodTooLargeError,
  UnsupportedQueryError,
} from "./errors.js";
export {
  expectedInverseGroupSize,
  expectedSse,
  expectedSseFullDomain,
  expectedSseGroups,
  expectedSseHadamard,
  expectedSseUniform,
  supportSumVariance,
} from "./expected-sse.js";
export {
  FullDomainAggregator,
  type FullDomainSynopsis,
  fullDomainEstimate,
  fullDomainPerUser,
  fullDomainReport,
  fullDomainSimulate,
  planFullDomain,
} from "./full-domain-kernel.js";
export { groupInterval } from "./group-interval.js";
export {
  GroupAggregator,
  type GroupSynopsis,
  groupEstimate,
  groupPerUser,
  groupReport,
  groupSimulate,
  planGroups,
} from "./group-kernel.js";
export { inputCoefficientCount } from "./hadamard-coefficient-entries.js";
export { hadamardInterval } from "./hadamard-interval.js";
export {
  HadamardAggregator,
  type HadamardSynopsis,
  hadamardEstimate,
  hadamardPerUser,
  hadamardReport,
  hadamardSimulate,
  marginalCoefficientCount,
  planHadamard,
} from "./hadamard-kernel.js";
export { INTERVAL_METHODS, type IntervalSynopsis, queryInterval } from "./intervals.js";
export { DEFAULT_MAX_CELLS, DEFAULT_MAX_WORK } from "./params.js";
export { type BeMethod, type CalmMethod, createBe, createCalm } from "./protocols/calm.js";
export { createEm, createInpEm, type EmMethod } from "./protocols/em.js";
export { createFc, createInpOlh, createInpPs, createInpRr } from "./protocols/full-domain.js";
export { createAm, createMargPs, createMargRr } from "./protocols/group.js";
export { createFt, createInpHt, createMargHt } from "./protocols/hadamard.js";
export { createInpCms, createInpHtCms } from "./protocols/sketch.js";
export { createUni } from "./protocols/uni.js";
export { CORMODE_CODE_METHODS, createMethod, isMethodId, METHOD_IDS, METHOD_INFO } from "./registry.js";
export { reportStreamId, SAME_REPORTS_AS } from "./report-streams.js";
export { runMethod } from "./run.js";
export {
  CmsAggregator,
  cmsEstimate,
  cmsPerUser,
  cmsReport,
  cmsSimulate,
  HcmsAggregator,
  hcmsEstimate,
  hcmsPerUser,
  hcmsReport,
  hcmsSimulate,
  planSketch,
  type SketchSynopsis,
} from "./sketch-kernel.js";
export {
  planUniform,
  UniformAggregator,
  uniformEstimate,
  uniformPopulation,
  uniformReport,
} from "./uniform-method.js";
