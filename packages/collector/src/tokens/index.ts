export {
  type AttestationRequest,
  type Attester,
  addressAttester,
  clientKeyAttester,
  testAttester,
  type Vouched,
} from "./attester.js";
export { type ReportGate, registerTokens, type TokenProtection } from "./routes.js";
