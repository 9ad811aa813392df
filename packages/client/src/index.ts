export {
  type BatchAcknowledgement,
  type CreateReportOptions,
  type HttpOptions,
  type PlanResponse,
  type ReportBatchBody,
  WIRE_FORMAT_VERSION,
  type WireReport,
} from "./api.js";
export { encodeBase64 } from "./base64.js";
export { createReport } from "./create-report.js";
export { encodeReport } from "./encode-report.js";
export { CollectorResponseError, PlanFormatError, WireFormatError, type WireProblem } from "./errors.js";
export { fetchPlan, sendReports } from "./http.js";
export { readPlan } from "./read-plan.js";
export { createReportId, isReportId, REPORT_ID_PATTERN } from "./report-id.js";
export { type WireKind, wireKind } from "./wire-kind.js";
