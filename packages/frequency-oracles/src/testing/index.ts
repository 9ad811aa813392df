export type { CheckContext, ContractConfig, OracleCheck, OracleContractOptions } from "./context.js";
export {
  type ContractFailure,
  DEFAULT_CONTRACT_CONFIGS,
  describeOracleContract,
  ORACLE_CHECKS,
  runOracleContract,
} from "./contract.js";
export { contractHistogram, valuesFromHistogram } from "./histogram.js";
