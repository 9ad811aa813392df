import type { FrequencyOracle, LocalHashOptions, LocalHashReport } from "./api.js";
import { defineOracle } from "./define-oracle.js";
import { localHashCore } from "./local-hash.js";
import { checkInteger, checkOracleOptions } from "./params.js";

/** Largest hash range: keeps `word * g` exact in a double (hash.ts). */
export const MAX_HASH_RANGE = 2 ** 20;

/**
 * Optimized local hashing (OLH; Wang et al., USENIX Security 2017), ../../../docs/algorithms.md#frequency-oracles: hash the value with a per-user seeded hash into g = round(e^eps) + 1 buckets
 * (capped at 2^20), report (seed, GRR over [g] of the bucket). Variance
 * `q(1-q) / (n (p - q)^2)` with p = e^eps/(e^eps + g - 1), q = 1/g, about
 * `4 e^eps / (n (e^eps - 1)^2)`. Client O(1) per user; server O(D) per report.
 */
export function createOlh(options: LocalHashOptions): FrequencyOracle<LocalHashReport> {
  const { eps, domain } = checkOracleOptions("createOlh", options);
  const g =
    options.g === undefined
      ? Math.min(MAX_HASH_RANGE, Math.round(Math.exp(eps)) + 1)
      : checkInteger("createOlh", "g", options.g, 2, MAX_HASH_RANGE);
  return defineOracle(localHashCore("olh", eps, domain, g));
}
