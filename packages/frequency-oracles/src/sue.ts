import type { DeviceOracle, FrequencyOracle, OracleOptions } from "./api.js";
import { defineOracle } from "./define-oracle.js";
import { defineDeviceOracle } from "./device-oracle.js";
import { fail } from "./errors.js";
import { checkDomain, checkEps } from "./params.js";
import { unaryCore, unaryDeviceCore } from "./unary.js";

/**
 * Symmetric unary encoding (SUE; basic one-time RAPPOR, "PRR"), ../../../docs/algorithms.md#frequency-oracles:
 * every bit of the one-hot vector goes through randomized response with eps/2, so
 * p = e^(eps/2) / (e^(eps/2) + 1) and q = 1 - p. Report: a bitset of ceil(D/32)
 * words. Variance `e^(eps/2) / (n (e^(eps/2) - 1)^2)`. Client O(D) per user,
 * server O(set bits) per report.
 */
export function createSue(options: OracleOptions): FrequencyOracle<Uint32Array> {
  const [eps, domain, p, q] = sueParameters(options);
  return defineOracle(unaryCore("sue", "sue", eps, domain, p, q));
}

/**
 * The device side of {@link createSue} (see {@link DeviceOracle}): the same core,
 * parameters, fingerprint and draws, without the server paths. O(1) to build.
 */
export function createSueDevice(options: OracleOptions): DeviceOracle<Uint32Array> {
  const [eps, domain, p, q] = sueParameters(options);
  return defineDeviceOracle(unaryDeviceCore("sue", "sue", eps, domain, p, q));
}

/** Checked (eps, D) and SUE's p = e^(eps/2) / (e^(eps/2) + 1), q = 1 - p. */
function sueParameters(options: OracleOptions): [number, number, number, number] {
  if (options == null || typeof options !== "object")
    fail("createSue", "options must be an object { eps, domain }", options);
  const eps = checkEps("createSue", options.eps);
  const domain = checkDomain("createSue", options.domain, 2, 2 ** 24);
  const half = Math.exp(eps / 2);
  return [eps, domain, half / (half + 1), 1 / (half + 1)];
}
