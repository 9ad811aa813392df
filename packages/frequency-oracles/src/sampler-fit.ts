import { cryptoRng, type Rng } from "@calm-ldp/random";
import type { DeviceOracle, FrequencyOracle } from "./api.js";
import { fail } from "./errors.js";
import { type FitStatistic, LawTally, normalTwoSided } from "./law-fit.js";
import { lawSupportRow } from "./law-support.js";
import { decodeReportWords } from "./wire.js";

/** Options of {@link samplerFit}. */
export interface SamplerFitOptions {
  /** Reports per input value through `perturbBatch`, at least (default 4,000; raised for power, see `relativeP`). */
  readonly reports?: number;
  /**
   * Relative error of p the pooled own-support test must catch (default 0.01): the
   * batch path draws at least `(9 / relativeP)^2 (1 - p) / p` reports in all (z = 9:
   * about 6 for the Bonferroni threshold plus 3 for power), capped by `maxReports`.
   */
  readonly relativeP?: number;
  /** Cap on the batch path's reports over all inputs (default 2e7). */
  readonly maxReports?: number;
  /** Reports per input value through the one-report `perturb` (and the device's), encoded and parsed (default 500). */
  readonly singleReports?: number;
  /** Users per input value in the `simulateCounts` test (default 1e8: count-level draws cost O(D)). */
  readonly simulatedUsers?: number;
  /** The device side of the same oracle, if it has one: its `perturb` is fitted too. */
  readonly device?: DeviceOracle;
  /** Family-wise false-alarm rate over all tests (default 1e-6; Bonferroni: each test at alpha / tests). */
  readonly alpha?: number;
  /** Random source of every draw (default `cryptoRng()`). */
  readonly rng?: Rng;
}

/** One test of {@link samplerFit}: the sampling path, the test and its p-value under the declared law. */
export interface SamplerFitTest extends FitStatistic {
  readonly path: "perturbBatch" | "perturb" | "device" | "simulateCounts";
}

/** What {@link samplerFit} found. */
export interface SamplerFitResult {
  /** Number of tests (the Bonferroni divisor). */
  readonly tests: number;
  readonly alpha: number;
  /** alpha / tests: a test fails when its p-value is below. */
  readonly threshold: number;
  /** Reports drawn per path (users for simulateCounts). */
  readonly draws: Readonly<Record<SamplerFitTest["path"], number>>;
  /** The test with the smallest p-value. */
  readonly smallest: SamplerFitTest;
  /** Every test below the threshold (empty: the sampler follows its declared law as far as these tests see). */
  readonly failures: readonly SamplerFitTest[];
  /** Every test, in the order run. */
  readonly results: readonly SamplerFitTest[];
}

/** Reports per perturbBatch call (memory bound). */
const CHUNK = 65_536;

/**
 * Goodness of fit of every sampling path to the oracle's declared output law
 * `privacyLaw()`, for every input value x in [0, D) (../../../docs/algorithms.md#frequency-oracles):
 * the exact privacy check reads only the declared law, so this is what makes it a
 * claim about the sampler that runs. Per input value and path (`perturbBatch`,
 * `perturb` and the device's `perturb` through `encode`, so the bytes a device
 * sends are what is tested) the tests of {@link LawTally}; plus, per path, a
 * pooled z-test of `sum_x #{reports of x supporting x}` against the law's
 * `sum_x n Pr[supports x | x]` (sized to catch a p off by `relativeP`); plus, for
 * `simulateCounts` with all users on one value, a binomial z-test per cell against
 * the law's support probabilities. All p-values are compared with alpha / tests
 * (Bonferroni), so a correct oracle fails with probability <= alpha.
 *
 * Cost: about `max(reports D, (9/relativeP)^2 (1-p)/p)` batch reports (capped),
 * `2 singleReports D` one-report draws, D simulateCounts calls, each report tallied
 * in O(1) (categorical), O(D) (bit laws) or O(g) (public seed).
 */
export function samplerFit(oracle: FrequencyOracle, options: SamplerFitOptions = {}): SamplerFitResult {
  const where = "samplerFit";
  const domain = oracle.domain;
  const base = positiveInteger(where, "reports", options.reports ?? 4000);
  const relativeP = options.relativeP ?? 0.01;
  if (!(relativeP > 0 && relativeP < 1)) fail(where, "relativeP must be in (0, 1)", relativeP);
  const maxReports = positiveInteger(where, "maxReports", options.maxReports ?? 2e7);
  const single = positiveInteger(where, "singleReports", options.singleReports ?? 500);
  const simulated = positiveInteger(where, "simulatedUsers", options.simulatedUsers ?? 1e8);
  const alpha = options.alpha ?? 1e-6;
  if (!(alpha > 0 && alpha < 1)) fail(where, "alpha must be in (0, 1)", alpha);
  const rng = options.rng ?? cryptoRng();
  const law = oracle.privacyLaw();
  const power = Math.ceil(((9 / relativeP) ** 2 * (1 - oracle.p)) / oracle.p / domain);
  const perInput = Math.max(base, Math.min(power, Math.floor(maxReports / domain)));

  const tests: SamplerFitTest[] = [];
  const draws = { perturbBatch: 0, perturb: 0, device: 0, simulateCounts: 0 };
  const support = Array.from({ length: domain }, (_, x) => lawSupportRow(oracle, law, x));

  fitPath("perturbBatch", perInput, (value, count) => batchWords(oracle, value, count, rng));
  fitPath("perturb", single, (value, count) => encoded(oracle, count, () => oracle.perturb(value, rng)));
  const device = options.device;
  if (device !== undefined) {
    tests.push({
      path: "device",
      name: "device fingerprint and stride equal the oracle's",
      pValue: device.fingerprint === oracle.fingerprint && device.stride === oracle.stride ? 1 : 0,
      detail: `${device.parameterText} vs ${oracle.parameterText}`,
    });
    fitPath("device", single, (value, count) => encoded(oracle, count, () => device.perturb(value, rng)));
  }
  for (const test of fitSimulation(oracle, support, simulated, rng)) tests.push(test);
  draws.simulateCounts += simulated * domain;

  const threshold = alpha / tests.length;
  const smallest = tests.reduce((a, b) => (b.pValue < a.pValue ? b : a));
  return {
    tests: tests.length,
    alpha,
    threshold,
    draws,
    smallest,
    failures: tests.filter((t) => t.pValue < threshold),
    results: tests,
  };

  /** Reports of one value through `draw` (count per input), tallied against the law; pooled own-support test. */
  function fitPath(
    path: SamplerFitTest["path"],
    count: number,
    draw: (value: number, count: number) => Uint32Array,
  ) {
    let hits = 0;
    let expected = 0;
    let variance = 0;
    for (let x = 0; x < domain; x++) {
      const words = draw(x, count);
      const tally = new LawTally(law, domain, x, rng);
      tally.add(words, count, oracle.stride);
      for (const test of tally.tests()) tests.push({ path, ...test });
      for (let i = 0, o = 0; i < count; i++, o += oracle.stride)
        if (oracle.supportsAt(words, o, x)) hits += 1;
      const s = support[x]![x]!;
      expected += count * s;
      variance += count * s * (1 - s);
    }
    draws[path] += count * domain;
    const z = variance > 0 ? (hits - expected) / Math.sqrt(variance) : hits === expected ? 0 : Number.NaN;
    tests.push({
      path,
      name: "reports supporting their own value, pooled over inputs (p)",
      pValue: normalTwoSided(z),
      detail: `${hits} of ${count * domain}, law expects ${expected.toPrecision(8)}`,
    });
  }
}

/** `count` reports of `value` through `perturbBatch`, in chunks, packed. O(count). */
function batchWords(oracle: FrequencyOracle, value: number, count: number, rng: Rng): Uint32Array {
  const stride = oracle.stride;
  const words = new Uint32Array(count * stride);
  const values = new Uint32Array(Math.min(CHUNK, count)).fill(value);
  for (let done = 0; done < count; done += values.length) {
    const size = Math.min(values.length, count - done);
    const batch = oracle.perturbBatch(values.subarray(0, size), rng);
    words.set(batch.words.subarray(0, size * stride), done * stride);
  }
  return words;
}

/** `count` reports from `perturb`, encoded as a device sends them and parsed back into packed words. O(count). */
function encoded(oracle: FrequencyOracle, count: number, perturb: () => unknown): Uint32Array {
  const words = new Uint32Array(count * oracle.stride);
  const scratch = new Uint32Array(oracle.stride);
  for (let i = 0; i < count; i++) {
    const bytes = oracle.encode(perturb() as never);
    decodeReportWords("samplerFit.perturb", bytes, oracle.id, oracle.fingerprint, oracle.stride, scratch);
    words.set(scratch, i * oracle.stride);
  }
  return words;
}

/**
 * simulateCounts with all `users` on one value x, for every x: each cell's count
 * must be Binomial(users, the law's Pr[supports y | x]) (`support[x][y]`). O(D^2).
 */
function fitSimulation(
  oracle: FrequencyOracle,
  support: readonly Float64Array[],
  users: number,
  rng: Rng,
): SamplerFitTest[] {
  const domain = oracle.domain;
  const tests: SamplerFitTest[] = [];
  const trueCounts = new Float64Array(domain);
  for (let x = 0; x < domain; x++) {
    trueCounts.fill(0);
    trueCounts[x] = users;
    const counts = oracle.simulateCounts(trueCounts, rng);
    for (let y = 0; y < domain; y++) {
      const s = support[x]![y]!;
      const mean = users * s;
      const sd = Math.sqrt(users * s * (1 - s));
      const z = sd > 0 ? (counts[y]! - mean) / sd : counts[y] === mean ? 0 : Number.NaN;
      tests.push({
        path: "simulateCounts",
        name: `cell ${y} with all users on ${x}`,
        pValue: normalTwoSided(z),
        detail: `${counts[y]} of ${users}, law expects ${mean.toPrecision(8)}`,
      });
    }
  }
  return tests;
}

function positiveInteger(where: string, name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) fail(where, `${name} must be an integer >= 1`, value);
  return value;
}
