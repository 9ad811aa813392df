export {
  type ContractConfig,
  contractHistogram,
  describeOracleContract,
  type OracleContractOptions,
  valuesFromHistogram,
} from "./contract.js";
