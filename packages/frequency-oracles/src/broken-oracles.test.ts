import { parity32 } from "@calm-ldp/hadamard";
import { createBernoulli, type Rng, uniformIntSampler } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import type { FrequencyOracle, OracleOptions } from "./api.js";
import { defineOracle } from "./define-oracle.js";
import { checkOracleOptions } from "./params.js";
import { DEFAULT_CONTRACT_CONFIGS, describeOracleContract, runOracleContract } from "./testing/index.js";

/** Deliberate faults of the Hadamard mechanism below (each one alone). */
interface Fault {
  /** This input's coefficient is sent without randomization (its value in the clear). */
  readonly clear?: (domain: number) => number;
  /** The column is drawn from [1, K) instead of [0, K) (a biased estimator). */
  readonly skipColumnZero?: boolean;
  /** ... and the declared law says so too (declaration and law agree, the estimator is still biased). */
  readonly lawSkipsColumnZero?: boolean;
  /** p and the law are declared this factor off the p the sampler uses. */
  readonly declaredPFactor?: number;
}

/**
 * The Hadamard mechanism with one coefficient per user (the oracle the issue's
 * reporter wrote by following CONTRIBUTING): K = 2^ceil(log2(D + 1)), the user
 * holding v draws a column j uniform in [0, K) and sends (j, b) with b =
 * H[v + 1][j] (as a parity bit) kept with p = e^eps / (e^eps + 1), else flipped.
 * A report supports x when H[x + 1][j] = b: p for x = v, exactly 1/2 for any other
 * row. Report: one word 2 j + b. `fault` breaks it on purpose; these oracles live
 * in this test file only.
 */
function createHadamardMechanism(options: OracleOptions, fault: Fault = {}): FrequencyOracle<number> {
  const { eps, domain } = checkOracleOptions("createHadamardMechanism", options);
  const columns = 2 ** Math.ceil(Math.log2(domain + 1));
  const p = Math.exp(eps) / (Math.exp(eps) + 1);
  const declared = p * (fault.declaredPFactor ?? 1);
  const keep = createBernoulli(p);
  const first = fault.skipColumnZero || fault.lawSkipsColumnZero ? 1 : 0;
  const column = uniformIntSampler(columns - first);
  const clear = fault.clear?.(domain) ?? -1;
  const lawFirst = fault.lawSkipsColumnZero ? 1 : 0;
  const coefficient = (value: number, j: number) => parity32((value + 1) & j);
  return defineOracle<number>({
    id: "hadamard-mechanism",
    eps,
    domain,
    p: declared,
    q: 0.5, // rows v + 1 and x + 1 agree on exactly K/2 of the K columns
    outputs: 2 * columns,
    parameters: { columns },
    perturbInto(values: ArrayLike<number>, start: number, end: number, out: Uint32Array, rng: Rng): void {
      for (let i = start; i < end; i++) {
        const value = values[i]!;
        const j = first + column(rng);
        const bit = coefficient(value, j);
        out[i - start] = 2 * j + (value === clear || keep.sample(rng) ? bit : 1 - bit);
      }
    },
    supportsAt: (words, offset, value) => coefficient(value, words[offset]! >>> 1) === (words[offset]! & 1),
    privacyLaw: () => ({
      kind: "categorical",
      outputs: 2 * columns,
      probabilities(value: number, out: Float64Array): Float64Array {
        for (let y = 0; y < 2 * columns; y++) {
          const j = y >>> 1;
          const agrees = coefficient(value, j) === (y & 1);
          out[y] = j < lawFirst ? 0 : (agrees ? declared : 1 - declared) / (columns - lawFirst);
        }
        return out;
      },
    }),
  });
}

const SAMPLER =
  "samples its declared law on every input and path (goodness of fit, Bonferroni at alpha = 1e-6)";
const DECLARED = "declares the p and q its law implies (exact, every input and value)";
const AUDIT =
  "passes the empirical audit of its real sampler on (0, D-1), the exact law's worst pair and (0, 1) (99.99 % lower bound <= eps)";

/** The failed checks of a broken variant, per default contract setting (the privacy and unbiasedness checks). */
function failedChecks(fault: Fault, checks = [DECLARED, SAMPLER, AUDIT]): string[][] {
  const failures = runOracleContract("broken", (o) => createHadamardMechanism(o, fault), { checks });
  return DEFAULT_CONTRACT_CONFIGS.map((config) =>
    failures.filter((f) => f.config === config).map((f) => f.check),
  );
}

// The sound mechanism passes the whole contract (this is the only place it runs).
describeOracleContract("hadamard mechanism (one coefficient per user)", (o) => createHadamardMechanism(o));

describe("the contract rejects deliberately broken oracles at every default setting", () => {
  it("the last value in the clear: the sampler check and the audit of (0, D-1) fail", () => {
    for (const failed of failedChecks({ clear: (domain) => domain - 1 })) {
      expect(failed).toContain(SAMPLER);
      expect(failed).toContain(AUDIT);
    }
  });

  it("a middle value in the clear: the sampler check fails (every input is fitted)", () => {
    for (const failed of failedChecks({ clear: (domain) => Math.floor(domain / 2) }, [SAMPLER])) {
      expect(failed).toEqual([SAMPLER]);
    }
  });

  it("any single value in the clear, each of 1 .. D-2 at D = 8: the sampler check fails", () => {
    for (let m = 1; m < 7; m++) {
      const failures = runOracleContract("broken", (o) => createHadamardMechanism(o, { clear: () => m }), {
        configs: [{ eps: 1, domain: 8 }],
        checks: [SAMPLER],
      });
      expect(
        failures.map((f) => f.check),
        `value ${m} in the clear`,
      ).toEqual([SAMPLER]);
    }
  });

  it("the column drawn from [1, K): the sampler check fails (the law says [0, K))", () => {
    for (const failed of failedChecks({ skipColumnZero: true }, [SAMPLER])) expect(failed).toEqual([SAMPLER]);
  });

  it("the column drawn from [1, K) with a law that says so: the declaration check fails (q is not 1/2)", () => {
    for (const failed of failedChecks({ lawSkipsColumnZero: true, declaredPFactor: 1 }, [DECLARED])) {
      expect(failed).toEqual([DECLARED]);
    }
  });

  it("p declared 1 % low (law declared with it): the sampler check fails", () => {
    for (const failed of failedChecks({ declaredPFactor: 0.99 }, [SAMPLER]))
      expect(failed).toEqual([SAMPLER]);
  });

  it("p declared 1 % high: the sampler check fails", () => {
    for (const failed of failedChecks({ declaredPFactor: 1.01 }, [SAMPLER]))
      expect(failed).toEqual([SAMPLER]);
  });
});
