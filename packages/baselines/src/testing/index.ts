export {
  contractSchema,
  contractStore,
  describeMethodContract,
  type MethodContractOptions,
} from "./contract.js";
export { checkReportLaw, type ReportLawCheck } from "./report-law.js";
