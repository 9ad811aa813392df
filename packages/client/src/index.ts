export {
  type BatchAcknowledgement,
  type CampaignRoundResponse,
  type CreateReportOptions,
  type FlushResult,
  type HttpOptions,
  type PendingReport,
  type PlanResponse,
  type ReportBatchBody,
  type Reporter,
  type ReporterLedger,
  type ReporterOptions,
  type ReporterStart,
  type ReporterStorage,
  WIRE_FORMAT_VERSION,
  type WireReport,
} from "./api.js";
export { encodeBase64 } from "./base64.js";
export { createReport } from "./create-report.js";
export { createReporter } from "./create-reporter.js";
export { encodeReport } from "./encode-report.js";
export {
  CollectorResponseError,
  PlanFormatError,
  ReporterError,
  type ReporterProblem,
  WireFormatError,
  type WireProblem,
} from "./errors.js";
export { fetchCampaignRound, fetchPlan, sendReports } from "./http.js";
export { readPlan } from "./read-plan.js";
export {
  createRandomReportId,
  createReportId,
  createTimeOrderedReportId,
  isReportId,
  REPORT_ID_PATTERN,
} from "./report-id.js";
export { REPORTER_STATE_VERSION } from "./reporter-state.js";
export { indexedDbStorage, localStorageStorage, memoryStorage } from "./storage.js";
export { type WireKind, wireKind } from "./wire-kind.js";
