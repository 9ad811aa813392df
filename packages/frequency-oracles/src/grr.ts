import { binomial, createBernoulli, type Rng } from "@calm-ldp/random";
import type { DeviceOracle, FrequencyOracle, OracleCore, OracleOptions } from "./api.js";
import { defineOracle } from "./define-oracle.js";
import { defineDeviceOracle } from "./device-oracle.js";
import { peakedLaw } from "./exact-privacy.js";
import { checkOracleOptions } from "./params.js";
import { boundedFromWord, rejectionCount, WordBuffer } from "./words.js";

/**
 * Generalized randomized response (GRR; "direct encoding", "PS"), ../../../docs/algorithms.md#frequency-oracles: report the true value with probability p = e^eps / (e^eps + D - 1), else a
 * uniformly chosen *other* value (each with q = 1 / (e^eps + D - 1)). Report: the
 * value (a number; one word packed). Variance `(D - 2 + e^eps) / (n (e^eps - 1)^2)`.
 * Client O(1) per user (two words: an exact Bernoulli threshold, then an unbiased
 * multiply-high draw over the D-1 others); server O(1) per report, estimate O(D).
 */
export function createGrr(options: OracleOptions): FrequencyOracle<number> {
  return defineOracle(grrCore("grr", "grr", "createGrr", options));
}

/**
 * The device side of {@link createGrr} (see {@link DeviceOracle}): the same core,
 * parameters, fingerprint and draws, without the server paths. O(1) to build.
 */
export function createGrrDevice(options: OracleOptions): DeviceOracle<number> {
  return defineDeviceOracle(grrDeviceCore("grr", "grr", "createGrr", options));
}

/** @internal The GRR core under a given id (shared by `grr`, `rr` and `adaptive`): device and server kernels. */
export function grrCore(
  id: string,
  mechanism: string,
  where: string,
  options: OracleOptions,
): OracleCore<number> {
  const device = grrDeviceCore(id, mechanism, where, options);
  const { domain, p, q } = device;
  return {
    ...device,

    accumulate(words: Uint32Array, count: number, tally: Float64Array): void {
      for (let i = 0; i < count; i++) tally[words[i]!]! += 1;
    },

    /**
     * Joint count-level law, O(D) binomials. GRR's output law is the mixture
     * "report x" with weight p - q, "uniform over all D" with weight D q
     * (p - q + D q = 1, and (p - q) + q = p on x): so t_x ~ Binomial(N_x, p - q)
     * users report their value and the remaining N - sum t_x spread uniformly
     * (a multinomial by conditional binomials). Same joint distribution as the
     * per-user path, with far fewer draws than spreading each value's
     * changed reports over the D - 1 others.
     */
    simulateCounts(trueCounts: ArrayLike<number>, rng: Rng, out: Float64Array): void {
      let uniform = 0;
      for (let x = 0; x < domain; x++) {
        const truthful = binomial(rng, trueCounts[x]!, p - q);
        out[x] = truthful;
        uniform += trueCounts[x]! - truthful;
      }
      for (let x = 0; x < domain && uniform > 0; x++) {
        const share = x === domain - 1 ? uniform : binomial(rng, uniform, 1 / (domain - x));
        out[x]! += share;
        uniform -= share;
      }
    },
    simulation: "joint",
  };
}

/** @internal The GRR core's device side: parameters, client kernel, support test, output law. */
function grrDeviceCore(
  id: string,
  mechanism: string,
  where: string,
  options: OracleOptions,
): OracleCore<number> {
  const { eps, domain } = checkOracleOptions(where, options);
  const expEps = Math.exp(eps);
  const p = expEps / (expEps + domain - 1);
  const q = 1 / (expEps + domain - 1);
  const keep = createBernoulli(p);
  const keepThreshold = keep.threshold;
  const others = domain - 1;
  const reject = rejectionCount(others);
  const buffer = new WordBuffer();

  return {
    id,
    mechanism,
    eps,
    domain,
    p,
    q,
    // one word per report, an integer in [0, D): defineOracle's default codec

    perturbInto(values: ArrayLike<number>, start: number, end: number, out: Uint32Array, rng: Rng): void {
      const count = end - start;
      const words = buffer.draw(rng, 2 * count);
      for (let i = 0; i < count; i++) {
        const value = values[start + i]!;
        const u = words[2 * i]!;
        if (u < keepThreshold || (u === keepThreshold && keep.fromWord(u, rng))) {
          out[i] = value;
        } else {
          const r = boundedFromWord(words[2 * i + 1]!, others, reject, rng);
          out[i] = r >= value ? r + 1 : r;
        }
      }
    },

    supportsAt: (words: Uint32Array, offset: number, value: number): boolean => words[offset] === value,

    privacyLaw: () => peakedLaw("categorical", domain, p, q),
  };
}
