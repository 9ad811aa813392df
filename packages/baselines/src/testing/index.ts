export {
  contractSchema,
  contractStore,
  describeMethodContract,
  type MethodContractOptions,
} from "./contract.js";
