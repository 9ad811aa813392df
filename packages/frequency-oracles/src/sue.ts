import type { DeviceOracle, FrequencyOracle, OracleOptions } from "./api.js";
import { defineOracle } from "./define-oracle.js";
import { defineDeviceOracle } from "./device-oracle.js";
import { type UnaryParameters, unaryCore, unaryDeviceCore, unaryParameters } from "./unary.js";

/**
 * Symmetric unary encoding (SUE; basic one-time RAPPOR, "PRR"), ../../../docs/algorithms.md#frequency-oracles:
 * every bit of the one-hot vector goes through randomized response with eps/2, so
 * p = e^(eps/2) / (e^(eps/2) + 1) and q = 1 - p. Report: a bitset of ceil(D/32)
 * words. Variance `e^(eps/2) / (n (e^(eps/2) - 1)^2)`. Client O(D) per user,
 * server O(set bits) per report.
 */
export function createSue(options: OracleOptions): FrequencyOracle<Uint32Array> {
  return defineOracle(unaryCore(sueParameters(options)));
}

/**
 * The device side of {@link createSue} (see {@link DeviceOracle}): the same core,
 * parameters, fingerprint and draws, without the server paths. O(1) to build.
 */
export function createSueDevice(options: OracleOptions): DeviceOracle<Uint32Array> {
  return defineDeviceOracle(unaryDeviceCore(sueParameters(options)));
}

/** Checked (eps, D) and SUE's p = e^(eps/2) / (e^(eps/2) + 1), q = 1 - p. */
function sueParameters(options: OracleOptions): UnaryParameters {
  return unaryParameters("sue", "createSue", options, (eps) => {
    const half = Math.exp(eps / 2);
    return [half / (half + 1), 1 / (half + 1)];
  });
}
