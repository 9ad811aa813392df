import type { FrequencyOracle, OracleOptions } from "./api.js";
import { defineOracle } from "./define-oracle.js";
import { fail } from "./errors.js";
import { grrCore } from "./grr.js";

/**
 * Binary randomized response (Warner): keep the bit with probability
 * e^eps / (1 + e^eps), else flip it. GRR with D = 2 (../../../docs/algorithms.md#frequency-oracles, row RR);
 * `domain` may be omitted and must be 2 when given. Variance
 * `e^eps / (n (e^eps - 1)^2)`. O(1) per user and per report.
 */
export function createRr(options: {
  readonly eps: number;
  readonly domain?: number;
}): FrequencyOracle<number> {
  if (options == null || typeof options !== "object")
    fail("createRr", "options must be an object { eps }", options);
  const domain = options.domain ?? 2;
  if (domain !== 2)
    fail("createRr", "domain must be 2 (binary randomized response; use grr for larger domains)", domain);
  const full: OracleOptions = { eps: options.eps, domain };
  return defineOracle(grrCore("rr", "rr", "createRr", full));
}
