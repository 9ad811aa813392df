import type { DeviceOracle, FrequencyOracle, OracleOptions } from "./api.js";
import { defineOracle } from "./define-oracle.js";
import { defineDeviceOracle } from "./device-oracle.js";
import { fail } from "./errors.js";
import { checkDomain, checkEps } from "./params.js";
import { unaryCore, unaryDeviceCore } from "./unary.js";

/**
 * Optimized unary encoding (OUE; Wang et al., USENIX Security 2017), ../../../docs/algorithms.md#frequency-oracles: the one-hot vector of the value, its 1 kept with p = 1/2, every 0 set with
 * q = 1 / (e^eps + 1). Report: a bitset of ceil(D/32) words. Variance
 * `4 e^eps / (n (e^eps - 1)^2)`, independent of D. Client O(D) per user
 * (ceil(D/2) random words), server O(set bits) per report, estimate O(D).
 */
export function createOue(options: OracleOptions): FrequencyOracle<Uint32Array> {
  const [eps, domain, p, q] = oueParameters(options);
  return defineOracle(unaryCore("oue", "oue", eps, domain, p, q));
}

/**
 * The device side of {@link createOue} (see {@link DeviceOracle}): the same core,
 * parameters, fingerprint and draws, without the server paths. O(1) to build.
 */
export function createOueDevice(options: OracleOptions): DeviceOracle<Uint32Array> {
  const [eps, domain, p, q] = oueParameters(options);
  return defineDeviceOracle(unaryDeviceCore("oue", "oue", eps, domain, p, q));
}

/** Checked (eps, D) and OUE's p = 1/2, q = 1 / (e^eps + 1). */
function oueParameters(options: OracleOptions): [number, number, number, number] {
  if (options == null || typeof options !== "object")
    fail("createOue", "options must be an object { eps, domain }", options);
  const eps = checkEps("createOue", options.eps);
  const domain = checkDomain("createOue", options.domain, 2, 2 ** 24);
  return [eps, domain, 0.5, 1 / (Math.exp(eps) + 1)];
}
