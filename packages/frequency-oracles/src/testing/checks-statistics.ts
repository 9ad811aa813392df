import type { FrequencyOracle } from "@calm-ldp/frequency-oracles";
import type { Rng } from "@calm-ldp/random";
import { expect } from "vitest";
import type { OracleCheck } from "./context.js";
import { contractHistogram, valuesFromHistogram } from "./histogram.js";

/** Mean and unbiased sample variance. */
function moments(samples: ArrayLike<number>): { mean: number; variance: number } {
  let mean = 0;
  for (let i = 0; i < samples.length; i++) mean += samples[i]!;
  mean /= samples.length;
  let squares = 0;
  for (let i = 0; i < samples.length; i++) squares += (samples[i]! - mean) ** 2;
  return { mean, variance: squares / (samples.length - 1) };
}

function perUserCounts<R>(oracle: FrequencyOracle<R>, values: Uint32Array, rng: Rng): Float64Array {
  const aggregator = oracle.createAggregator();
  aggregator.addBatch(oracle.perturbBatch(values, rng));
  return aggregator.counts();
}

/**
 * The estimator half of the contract, on the contract histogram (every cell
 * non-empty): unbiasedness of the batch and one-report paths (per-cell z-tests),
 * the variance against the exact formula (sum of squared z over cells and
 * repetitions), and the count-level simulation against the per-user path.
 */
export const statisticsChecks: readonly OracleCheck[] = [
  {
    name: "is unbiased on the batch path and on the one-report path (per-cell z-tests)",
    run: ({ oracle, domain, rngFor, settings: { unbiasedUsers, zTolerance } }) => {
      const counts = contractHistogram(domain, unbiasedUsers);
      const values = valuesFromHistogram(counts);
      const rng = rngFor(2);
      const aggregator = oracle.createAggregator();
      aggregator.addBatch(oracle.perturbBatch(values, rng));
      const estimate = aggregator.estimate();
      for (let x = 0; x < domain; x++) {
        const f = counts[x]! / unbiasedUsers;
        const z = (estimate[x]! - f) / Math.sqrt(oracle.variance(unbiasedUsers, f));
        expect(Math.abs(z), `batch path, cell ${x}: z = ${z}`).toBeLessThan(zTolerance);
      }
      const fewer = Math.ceil(unbiasedUsers / 10);
      const smallCounts = contractHistogram(domain, fewer);
      const single = oracle.createAggregator();
      for (const value of valuesFromHistogram(smallCounts)) single.add(oracle.perturb(value, rng));
      const singleEstimate = single.estimate();
      for (let x = 0; x < domain; x++) {
        const f = smallCounts[x]! / fewer;
        const z = (singleEstimate[x]! - f) / Math.sqrt(oracle.variance(fewer, f));
        expect(Math.abs(z), `one-report path, cell ${x}: z = ${z}`).toBeLessThan(zTolerance);
      }
    },
  },
  {
    name: "has the variance of its exact formula (squared z over cells and repetitions)",
    run: ({ oracle, domain, rngFor, settings: { varianceUsers, varianceRepetitions, zTolerance } }) => {
      const counts = contractHistogram(domain, varianceUsers);
      const values = valuesFromHistogram(counts);
      const rng = rngFor(3);
      const sums = new Float64Array(varianceRepetitions);
      for (let r = 0; r < varianceRepetitions; r++) {
        const aggregator = oracle.createAggregator();
        aggregator.addBatch(oracle.perturbBatch(values, rng));
        const estimate = aggregator.estimate();
        let sum = 0;
        for (let x = 0; x < domain; x++) {
          const f = counts[x]! / varianceUsers;
          sum += (estimate[x]! - f) ** 2 / oracle.variance(varianceUsers, f);
        }
        sums[r] = sum;
      }
      // E[sum] = D when the formula is right; the repetitions are independent, so
      // the mean's standard error is the sample sd / sqrt(R).
      const { mean, variance } = moments(sums);
      const z = (mean - domain) / Math.sqrt(variance / varianceRepetitions);
      expect(Math.abs(z), `mean of sum z^2 = ${mean} for D = ${domain}`).toBeLessThan(zTolerance);
    },
  },
  {
    name: "simulates counts with the per-user distribution (per-cell means and variances)",
    run: ({ oracle, domain, rngFor, settings }) => {
      const { simulationUsers, perUserRepetitions, simulatedRepetitions, zTolerance } = settings;
      const counts = contractHistogram(domain, simulationUsers);
      const values = valuesFromHistogram(counts);
      const rng = rngFor(4);
      const perUser = Array.from({ length: perUserRepetitions }, () => perUserCounts(oracle, values, rng));
      const simulated = Array.from({ length: simulatedRepetitions }, () =>
        oracle.simulateCounts(counts, rng),
      );
      for (const drawn of simulated) {
        for (let x = 0; x < domain; x++) {
          expect(Number.isInteger(drawn[x]!) && drawn[x]! >= 0 && drawn[x]! <= simulationUsers).toBe(true);
        }
      }
      const cell = (draws: Float64Array[], x: number) => moments(draws.map((c) => c[x]!));
      for (let x = 0; x < domain; x++) {
        const own = counts[x]!;
        const expectedMean = own * oracle.p + (simulationUsers - own) * oracle.q;
        const expectedVariance =
          own * oracle.p * (1 - oracle.p) + (simulationUsers - own) * oracle.q * (1 - oracle.q);
        for (const [label, draws] of [
          ["per-user", perUser],
          ["simulated", simulated],
        ] as const) {
          const { mean, variance } = cell(draws, x);
          const zMean = (mean - expectedMean) / Math.sqrt(expectedVariance / draws.length);
          expect(Math.abs(zMean), `${label} mean, cell ${x}`).toBeLessThan(zTolerance);
          // ln(s^2 / sigma^2) is ~ normal with variance 2 / (R - 1) for near-normal counts.
          const zVariance = Math.log(variance / expectedVariance) / Math.sqrt(2 / (draws.length - 1));
          expect(
            Math.abs(zVariance),
            `${label} variance, cell ${x}: ${variance} vs ${expectedVariance}`,
          ).toBeLessThan(zTolerance);
        }
        const a = cell(perUser, x);
        const b = cell(simulated, x);
        const zTwoSample =
          (a.mean - b.mean) / Math.sqrt(a.variance / perUser.length + b.variance / simulated.length || 1);
        expect(Math.abs(zTwoSample), `per-user vs simulated mean, cell ${x}`).toBeLessThan(zTolerance);
      }
      if (oracle.simulation === "joint") {
        // The joint law also fixes the spread of the total number of supports.
        const total = (c: Float64Array) => c.reduce((s, v) => s + v, 0);
        const a = moments(perUser.map(total));
        const b = moments(simulated.map(total));
        if (a.variance === 0 || b.variance === 0) {
          expect(a.variance).toBe(b.variance);
          expect(a.mean).toBe(b.mean);
        } else {
          const z =
            Math.log(a.variance / b.variance) /
            Math.sqrt(2 / (perUser.length - 1) + 2 / (simulated.length - 1));
          expect(Math.abs(z), "variance of the total, per-user vs simulated").toBeLessThan(zTolerance);
        }
      }
    },
  },
];
