import type { FrequencyOracle, OracleOptions } from "@calm-ldp/frequency-oracles";
import { seededRng } from "@calm-ldp/random";
import { describe, it } from "vitest";
import { privacyChecks } from "./checks-privacy.js";
import { statisticsChecks } from "./checks-statistics.js";
import { wireChecks } from "./checks-wire.js";
import type { CheckContext, ContractConfig, OracleCheck, OracleContractOptions } from "./context.js";

/** Every check of the contract, in the order they run. */
export const ORACLE_CHECKS: readonly OracleCheck[] = [...privacyChecks, ...statisticsChecks, ...wireChecks];

/** The default settings: eps 1 / D 8, eps 0.5 / D 37, eps 3 / D 3. */
export const DEFAULT_CONTRACT_CONFIGS: readonly ContractConfig[] = [
  { eps: 1, domain: 8 },
  { eps: 0.5, domain: 37 },
  { eps: 3, domain: 3 },
];

/** One setting's oracle and what its checks read. O(1) besides the factory. */
function contextFor(
  name: string,
  factory: (options: OracleOptions) => FrequencyOracle<unknown>,
  options: OracleContractOptions,
  { eps, domain }: ContractConfig,
  configIndex: number,
): CheckContext {
  const seed = options.seed ?? 20180615;
  return {
    name,
    factory,
    oracle: factory({ eps, domain }),
    device: options.device?.({ eps, domain }),
    eps,
    domain,
    rngFor: (check: number) => seededRng(seed, configIndex * 64 + check),
    settings: {
      seed,
      auditSamples: options.auditSamples ?? 100_000,
      fitReports: options.fitReports ?? 4000,
      unbiasedUsers: options.unbiasedUsers ?? 200_000,
      varianceUsers: options.varianceUsers ?? 1_000,
      varianceRepetitions: options.varianceRepetitions ?? 200,
      simulationUsers: options.simulationUsers ?? 2_000,
      perUserRepetitions: options.perUserRepetitions ?? 150,
      simulatedRepetitions: options.simulatedRepetitions ?? 600,
      zTolerance: options.zTolerance ?? 5,
    },
  };
}

/**
 * Register the contract every frequency oracle must pass, as vitest `describe`
 * / `it` blocks, for each (eps, D) setting (default eps 1 / D 8, eps 0.5 / D 37,
 * eps 3 / D 3), the checks of {@link ORACLE_CHECKS}:
 * - parameters: p > q, the f-free variance is `q(1-q)/(n(p-q)^2)`, the exact one
 *   reduces to it at f = 0, the fingerprint changes with eps and D;
 * - exact privacy of the declared law: `exactWorstLogRatio` <= eps + 1e-9;
 * - the declaration against the law: the p and q the law implies (exact);
 * - the sampler against the law: `samplerFit` on every input value in [0, D) and
 *   every sampling path (perturbBatch, perturb, the device's perturb, simulateCounts),
 *   family-wise false-alarm rate 1e-6 (Bonferroni), sized to catch a p off by 1 %;
 * - empirical audit of the real sampler (seeded) on (0, D-1), the pair the exact law
 *   says is worst and (0, 1): each 99.99 % lower bound <= eps (1e-4 false-alarm rate per pair);
 * - unbiasedness of the batch and one-report paths (z-tests per cell, every cell non-empty);
 * - variance against the exact formula; count-level simulation against the per-user path;
 * - wire format, seeded fuzzing, aggregator, default cryptographic source.
 * Typical cost: 1 to 5 s per oracle (README "Tests").
 *
 * Usage, in a contributor's test (a registered oracle already runs it from the
 * package's `contract.test.ts`; do not run it twice):
 * `describeOracleContract("my-oracle", (o) => createMyOracle(o));`
 */
export function describeOracleContract(
  name: string,
  factory: (options: OracleOptions) => FrequencyOracle<unknown>,
  options: OracleContractOptions = {},
): void {
  const configs = options.configs ?? DEFAULT_CONTRACT_CONFIGS;
  describe(`frequency-oracle contract: ${name}`, () => {
    configs.forEach((config, configIndex) => {
      describe(`eps = ${config.eps}, D = ${config.domain}`, () => {
        const context = contextFor(name, factory, options, config, configIndex);
        for (const check of ORACLE_CHECKS) it(check.name, () => check.run(context));
      });
    });
  });
}

/** A check the oracle failed in {@link runOracleContract}. */
export interface ContractFailure {
  readonly config: ContractConfig;
  readonly check: string;
  readonly message: string;
}

/**
 * Run the contract's checks directly (no vitest blocks) and return every failure:
 * how the tests show that the suite rejects deliberately broken oracles. `checks`
 * selects checks by name (default all). Same settings and seeds as
 * {@link describeOracleContract}.
 */
export function runOracleContract(
  name: string,
  factory: (options: OracleOptions) => FrequencyOracle<unknown>,
  options: OracleContractOptions & { readonly checks?: readonly string[] } = {},
): ContractFailure[] {
  const configs = options.configs ?? DEFAULT_CONTRACT_CONFIGS;
  const selected = ORACLE_CHECKS.filter(
    (c) => options.checks === undefined || options.checks.includes(c.name),
  );
  const failures: ContractFailure[] = [];
  configs.forEach((config, configIndex) => {
    const context = contextFor(name, factory, options, config, configIndex);
    for (const check of selected) {
      try {
        check.run(context);
      } catch (error) {
        failures.push({
          config,
          check: check.name,
          message: error instanceof Error ? error.message : String(error),
        });
      }
    }
  });
  return failures;
}
