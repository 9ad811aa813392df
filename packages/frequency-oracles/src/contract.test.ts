import { createOlh } from "./olh.js";
import { createOracle, ORACLE_NAMES } from "./registry.js";
import { createSs } from "./ss.js";
import { describeOracleContract } from "./testing/index.js";

// Every registry oracle passes the shared contract (src/testing/contract.ts) at
// three settings (eps 1 / D 8, eps 0.5 / D 37, eps 3 / D 3); binary RR at D = 2.
for (const name of ORACLE_NAMES) {
  if (name === "rr") continue;
  describeOracleContract(name, (options) => createOracle(name, options));
}

describeOracleContract("rr", (options) => createOracle("rr", options), {
  configs: [
    { eps: 1, domain: 2 },
    { eps: 0.25, domain: 2 },
  ],
});

// Non-default parameters: OLH with a hash range that is not a power of two, SS with a large subset.
describeOracleContract("olh with g = 5", (options) => createOlh({ ...options, g: 5 }), {
  configs: [{ eps: 1.2, domain: 11 }],
});
describeOracleContract("ss with k = 4", (options) => createSs({ ...options, k: 4 }), {
  configs: [{ eps: 0.8, domain: 9 }],
});
