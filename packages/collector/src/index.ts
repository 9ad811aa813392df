// The main entry imports no database driver: the backends are the subpaths
// `@calm-ldp/collector/duckdb`, `/postgres` and `/clickhouse` (see open-storage.ts).

export { viewOracles } from "@calm-ldp/calm-core";
export type {
  AcceptedReport,
  CollectorOptions,
  CollectorStorage,
  ErrorBody,
  GroupCommitListener,
  MarginalAnswer,
  RoundCounts,
  RoundRequest,
  RoundState,
  SchemaVersionCheck,
  StoredRound,
  StoreResult,
  SupportCounts,
} from "./api.js";
export {
  ATTACKS,
  type AttackName,
  type AttackResult,
  type AttackTarget,
  craftReport,
  parseTarget,
  protectedKey,
  type RunAttackOptions,
  releasedCell,
  runAttack,
  targetView,
  tokenUsers,
} from "./attacks/index.js";
export { bearerChecker } from "./auth.js";
export { decodeBase64 } from "./base64-decode.js";
export { CorsPolicy, parseAllowedOrigins } from "./cors.js";
export { MAX_VIEW_CELLS, planRound } from "./create-round.js";
export { decodeReport } from "./decode-report.js";
export {
  keptSupportCounts,
  UNARY_REPORT_FALSE_POSITIVE_RATE,
  type UnaryCountRule,
  unaryCountRule,
  unaryReportCheck,
} from "./defences/unary-report-check.js";
export { InvalidParameterError, RequestRejectedError, RoundClosedError, StorageError } from "./errors.js";
export {
  aggregatorFromCounts,
  ESTIMATORS,
  type EstimatedMarginal,
  type Estimator,
  estimateMarginal,
} from "./estimate-marginal.js";
export { GroupCommit } from "./group-commit.js";
export { LOG_LEVELS } from "./logging.js";
export { CollectorMetrics, collectorMetrics } from "./metrics.js";
export { type SchemaMigration, SchemaVersionError } from "./migrations/runner.js";
export { openStorage, type StorageLocation } from "./open-storage.js";
export { operationId } from "./openapi.js";
export { queryAttributes } from "./query-attributes.js";
export { parseRateLimit, type RateLimit, RateLimiter } from "./rate-limit.js";
export { createCollector } from "./server.js";
export {
  type FetchRoundPlanOptions,
  fetchRoundPlan,
  type SimulateUsersOptions,
  type SimulateUsersResult,
  simulateUsers,
} from "./simulate-users.js";
export { type RunningCollector, type StartCollectorOptions, startCollector } from "./start-collector.js";
export { supportedCells } from "./supported-cells.js";
export {
  type AttestationRequest,
  type Attester,
  addressAttester,
  clientKeyAttester,
  DirectoryQuotaLedger,
  type IssuerOptions,
  QuotaLedger,
  type QuotaStore,
  type ReportGate,
  type RunningIssuer,
  registerTokens,
  startIssuer,
  type TokenProtection,
  testAttester,
  type Vouched,
} from "./tokens/index.js";
export { validateBatch } from "./validate-batch.js";
