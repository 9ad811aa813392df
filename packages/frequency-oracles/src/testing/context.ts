import type { DeviceOracle, FrequencyOracle, OracleOptions } from "@calm-ldp/frequency-oracles";
import type { Rng } from "@calm-ldp/random";

/** One (eps, D) setting of the contract suite. */
export interface ContractConfig {
  readonly eps: number;
  readonly domain: number;
}

/** Options of the contract suite; every number has a default sized to keep one oracle to a few seconds. */
export interface OracleContractOptions {
  /** Settings to run (default eps 1 / D 8, eps 0.5 / D 37, eps 3 / D 3). */
  readonly configs?: readonly ContractConfig[];
  /** The oracle's device side (`create*Device`), if it has one: its sampler is checked against the law too. */
  readonly device?: (options: OracleOptions) => DeviceOracle;
  /** Seed of every random draw in the suite (default 20180615). */
  readonly seed?: number;
  /** Reports per input in each empirical audit (default 100,000; the CLI uses 1e6). */
  readonly auditSamples?: number;
  /** Reports per input value in the sampler check's batch path, at least (default 4,000; see `samplerFit`). */
  readonly fitReports?: number;
  /** Users in the unbiasedness run (default 200,000). */
  readonly unbiasedUsers?: number;
  /** Users and repetitions of the variance run (default 1,000 x 200). */
  readonly varianceUsers?: number;
  readonly varianceRepetitions?: number;
  /** Users and repetitions of the simulation-versus-per-user comparison (default 2,000; 150 per-user, 600 simulated). */
  readonly simulationUsers?: number;
  readonly perUserRepetitions?: number;
  readonly simulatedRepetitions?: number;
  /**
   * |z| above which one of the per-cell statistical checks fails (default 5):
   * Pr[|Z| > 5] = 5.7e-7 per check. The sampler check states its own family-wise
   * rate (alpha = 1e-6, Bonferroni over its tests).
   */
  readonly zTolerance?: number;
}

/** Everything one check of one setting reads. */
export interface CheckContext {
  readonly name: string;
  readonly factory: (options: OracleOptions) => FrequencyOracle<unknown>;
  readonly oracle: FrequencyOracle<unknown>;
  readonly device: DeviceOracle | undefined;
  readonly eps: number;
  readonly domain: number;
  /** A fresh seeded source per check number (independent streams). */
  readonly rngFor: (check: number) => Rng;
  readonly settings: Required<Omit<OracleContractOptions, "configs" | "device">>;
}

/** A named check of the contract: throws (an assertion error) when the oracle breaks it. */
export interface OracleCheck {
  readonly name: string;
  readonly run: (context: CheckContext) => void;
}
