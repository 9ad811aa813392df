import type { FrequencyOracle, OracleOptions } from "./api.js";
import { defineOracle } from "./define-oracle.js";
import { fail } from "./errors.js";
import { grrCore } from "./grr.js";
import { checkOracleOptions } from "./params.js";
import { unaryCore } from "./unary.js";

/**
 * Which mechanism the adaptive oracle runs: GRR when `D - 2 < 3 e^eps` (then
 * GRR's variance (D - 2 + e^eps)/(e^eps - 1)^2 is below OUE's 4 e^eps/(e^eps - 1)^2),
 * otherwise OUE (CALM, CCS 2018; ../../../docs/algorithms.md#frequency-oracles). O(1).
 */
export function adaptiveMechanism(eps: number, domain: number): "grr" | "oue" {
  return domain - 2 < 3 * Math.exp(eps) ? "grr" : "oue";
}

/**
 * CALM's adaptive frequency oracle: GRR or OUE, whichever has the smaller
 * variance at (eps, D) (see {@link adaptiveMechanism}); `mechanism` says which.
 * Reports are those of the chosen mechanism (a number for GRR, a bitset for OUE)
 * under the id `adaptive`. Variance: the minimum of the two. Costs: those of the
 * chosen mechanism.
 */
export function createAdaptive(options: OracleOptions): FrequencyOracle<number | Uint32Array> {
  const { eps, domain } = checkOracleOptions("createAdaptive", options);
  if (adaptiveMechanism(eps, domain) === "grr") {
    return defineOracle(grrCore("adaptive", "grr", "createAdaptive", { eps, domain })) as FrequencyOracle<
      number | Uint32Array
    >;
  }
  if (domain > 2 ** 24) fail("createAdaptive", "domain must be <= 2^24 when OUE is chosen", domain);
  const oue = { id: "adaptive", mechanism: "oue", eps, domain, p: 0.5, q: 1 / (Math.exp(eps) + 1) };
  return defineOracle(unaryCore(oue)) as FrequencyOracle<number | Uint32Array>;
}
