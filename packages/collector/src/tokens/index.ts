export {
  type AttestationRequest,
  type Attester,
  addressAttester,
  clientKeyAttester,
  testAttester,
  type Vouched,
} from "./attester.js";
export { type IssuerOptions, type RunningIssuer, startIssuer } from "./issuer-server.js";
export { DirectoryQuotaLedger, QuotaLedger, type QuotaStore } from "./ledger.js";
export { type ReportGate, registerTokens, type TokenProtection } from "./routes.js";
