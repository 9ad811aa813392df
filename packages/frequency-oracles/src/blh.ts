import type { FrequencyOracle, LocalHashReport, OracleOptions } from "./api.js";
import { defineOracle } from "./define-oracle.js";
import { localHashCore } from "./local-hash.js";
import { checkOracleOptions } from "./params.js";

/**
 * Binary local hashing (BLH; Bassily and Smith 2015, as analysed by Wang et al.
 * 2017): local hashing with g = 2, i.e. a seeded hash to one bit sent through
 * binary randomized response. p = e^eps / (e^eps + 1), q = 1/2; variance
 * `(e^eps + 1)^2 / (n (e^eps - 1)^2)`. Client O(1), server O(D) per report.
 */
export function createBlh(options: OracleOptions): FrequencyOracle<LocalHashReport> {
  const { eps, domain } = checkOracleOptions("createBlh", options);
  return defineOracle(localHashCore("blh", eps, domain, 2));
}
