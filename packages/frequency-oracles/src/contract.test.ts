import { createOlh } from "./olh.js";
import { ORACLE_NAMES, oracleEntry } from "./registry.js";
import { createSs } from "./ss.js";
import { describeOracleContract } from "./testing/index.js";

// Every line of the oracle table (registry.ts) passes the shared contract (src/testing/contract.ts),
// once, at the line's settings (default eps 1 / D 8, eps 0.5 / D 37, eps 3 / D 3), with its device side.
for (const name of ORACLE_NAMES) {
  const { create, device, contractConfigs } = oracleEntry(name);
  describeOracleContract(name, create, { configs: contractConfigs, device });
}

// Non-default parameters: OLH with a hash range that is not a power of two, SS with a large subset.
describeOracleContract("olh with g = 5", (options) => createOlh({ ...options, g: 5 }), {
  configs: [{ eps: 1.2, domain: 11 }],
});
describeOracleContract("ss with k = 4", (options) => createSs({ ...options, k: 4 }), {
  configs: [{ eps: 0.8, domain: 9 }],
});
