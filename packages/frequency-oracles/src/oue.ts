import type { DeviceOracle, FrequencyOracle, OracleOptions } from "./api.js";
import { defineOracle } from "./define-oracle.js";
import { defineDeviceOracle } from "./device-oracle.js";
import { type UnaryParameters, unaryCore, unaryDeviceCore, unaryParameters } from "./unary.js";

/**
 * Optimized unary encoding (OUE; Wang et al., USENIX Security 2017), ../../../docs/algorithms.md#frequency-oracles: the one-hot vector of the value, its 1 kept with p = 1/2, every 0 set with
 * q = 1 / (e^eps + 1). Report: a bitset of ceil(D/32) words. Variance
 * `4 e^eps / (n (e^eps - 1)^2)`, independent of D. Client O(D) per user
 * (ceil(D/2) random words), server O(set bits) per report, estimate O(D).
 */
export function createOue(options: OracleOptions): FrequencyOracle<Uint32Array> {
  return defineOracle(unaryCore(oueParameters(options)));
}

/**
 * The device side of {@link createOue} (see {@link DeviceOracle}): the same core,
 * parameters, fingerprint and draws, without the server paths. O(1) to build.
 */
export function createOueDevice(options: OracleOptions): DeviceOracle<Uint32Array> {
  return defineDeviceOracle(unaryDeviceCore(oueParameters(options)));
}

/** Checked (eps, D) and OUE's p = 1/2, q = 1 / (e^eps + 1). */
function oueParameters(options: OracleOptions): UnaryParameters {
  return unaryParameters("oue", "createOue", options, (eps) => [0.5, 1 / (Math.exp(eps) + 1)]);
}
