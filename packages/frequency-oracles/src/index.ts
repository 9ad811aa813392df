export { adaptiveMechanism, createAdaptive } from "./adaptive.js";
export type {
  CategoricalLaw,
  CreateOracleOptions,
  DeviceOracle,
  EmpiricalAuditOptions,
  EmpiricalAuditResult,
  ExactPrivacyOptions,
  FrequencyOracle,
  IndependentBitsLaw,
  LocalHashOptions,
  LocalHashReport,
  MembershipLaw,
  OracleAggregator,
  OracleCore,
  OracleEntry,
  OracleFactory,
  OracleOptions,
  PrivacyLaw,
  PublicSeedLaw,
  ReportBatch,
  SimulationLaw,
  SubsetSelectionOptions,
} from "./api.js";
export { betaQuantile, logGamma, regularizedBeta, regularizedGamma } from "./beta.js";
export { createBlh } from "./blh.js";
export { clipAndRenormalise } from "./clip.js";
export { clopperPearson, clopperPearsonLower, clopperPearsonUpper } from "./clopper-pearson.js";
export { defineOracle } from "./define-oracle.js";
export { defineDeviceOracle } from "./device-oracle.js";
export { empiricalAudit } from "./empirical-audit.js";
export { InvalidParameterError, MalformedReportError, type MalformedReportProblem } from "./errors.js";
export { supportEstimate, supportVariance } from "./estimate.js";
export {
  EXACT_PRIVACY_TOLERANCE,
  exactWorstLogRatio,
  exactWorstPair,
  peakedLaw,
  type WorstPair,
} from "./exact-privacy.js";
export { fnv1a32, parameterText } from "./fingerprint.js";
export { createGrr, createGrrDevice } from "./grr.js";
export { bucketStart, fmix32, hashKey, localHash } from "./hash.js";
export { createHr, MAX_HR_DOMAIN } from "./hr.js";
export { type InstantaneousLayer, instantaneousLayer } from "./instantaneous.js";
export { chiSquareTail, type FitStatistic, LawTally, normalTwoSided } from "./law-fit.js";
export { declaredSupportMismatch, lawSupportRow } from "./law-support.js";
export { normSub } from "./norm-sub.js";
export { createOlh, MAX_HASH_RANGE } from "./olh.js";
export { createOue, createOueDevice } from "./oue.js";
export { checkOracleOptions, MAX_DOMAIN, MAX_EPS } from "./params.js";
export type { PostProcessing } from "./post-processing.js";
export {
  createOracle,
  isOracleName,
  ORACLE_NAMES,
  ORACLE_TABLE,
  type OracleName,
  oracleEntry,
  oracleFactories,
} from "./registry.js";
export { createRr } from "./rr.js";
export {
  type SamplerFitOptions,
  type SamplerFitResult,
  type SamplerFitTest,
  samplerFit,
} from "./sampler-fit.js";
export { projectOntoSimplex } from "./simplex.js";
export { simulateSupportPerCell } from "./simulate.js";
export { createSs, defaultSubsetSize, MAX_SS_DOMAIN, subsetSelectionProbabilities } from "./ss.js";
export { createSue, createSueDevice } from "./sue.js";
export { decodeReportWords, encodeReportWords, REPORT_FORMAT_VERSION, REPORT_MAGIC } from "./wire.js";
export { valueCounts, zipfValues, zipfWeights } from "./zipf.js";
