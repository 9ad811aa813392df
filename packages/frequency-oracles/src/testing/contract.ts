// The package's public entry, not relative paths: the built `testing` entry then
// shares the main entry's classes (MalformedReportError, ...) instead of bundling copies.
import {
  EXACT_PRIVACY_TOLERANCE,
  empiricalAudit,
  exactWorstLogRatio,
  type FrequencyOracle,
  InvalidParameterError,
  MalformedReportError,
  type OracleOptions,
} from "@calm-ldp/frequency-oracles";
import { type Rng, seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";

/** One (eps, D) setting of the contract suite. */
export interface ContractConfig {
  readonly eps: number;
  readonly domain: number;
}

/** Options of {@link describeOracleContract}; every number has a default sized to keep one oracle under ~5 s. */
export interface OracleContractOptions {
  /** Settings to run (default eps 1 / D 8, eps 0.5 / D 37, eps 3 / D 3). */
  readonly configs?: readonly ContractConfig[];
  /** Seed of every random draw in the suite (default 20180615). */
  readonly seed?: number;
  /** Reports per input in the empirical audit (default 100,000; the CLI uses 1e6). */
  readonly auditSamples?: number;
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
   * |z| above which a statistical check fails (default 5). The suite makes a few
   * thousand z-checks over all built-in oracles; Pr[|Z| > 5] = 5.7e-7 keeps the
   * family-wise false-alarm rate near 0.3 % while a bias of 5 standard errors is caught.
   */
  readonly zTolerance?: number;
}

/**
 * The contract's data: a histogram over D values with weights (x + 1)^-1.1, the
 * last cell empty (D > 2), rounded down and topped up in cell 0 so the counts sum
 * to `users`. Counts, not fractions. O(D).
 */
export function contractHistogram(domain: number, users: number): Float64Array {
  const weights = new Float64Array(domain);
  let total = 0;
  for (let x = 0; x < domain; x++) {
    weights[x] = domain > 2 && x === domain - 1 ? 0 : 1 / (x + 1) ** 1.1;
    total += weights[x]!;
  }
  const counts = new Float64Array(domain);
  let assigned = 0;
  for (let x = 0; x < domain; x++) {
    counts[x] = Math.floor((users * weights[x]!) / total);
    assigned += counts[x]!;
  }
  counts[0]! += users - assigned;
  return counts;
}

/** The values of `counts[x]` users holding x, in value order (a Uint32Array of sum(counts) values). O(users + D). */
export function valuesFromHistogram(counts: ArrayLike<number>): Uint32Array {
  let users = 0;
  for (let x = 0; x < counts.length; x++) users += counts[x]!;
  const values = new Uint32Array(users);
  let next = 0;
  for (let x = 0; x < counts.length; x++) values.fill(x, next, (next += counts[x]!));
  return values;
}

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
 * Register the contract every frequency oracle must pass, as vitest `describe`
 * / `it` blocks, for each (eps, D) setting:
 * - parameters: p > q, the f-free variance is `q(1-q)/(n(p-q)^2)`, the exact one
 *   reduces to it at f = 0, the fingerprint changes with eps and D;
 * - exact privacy: {@link exactWorstLogRatio} <= eps + 1e-9;
 * - empirical audit of the real sampler (seeded): lower bound <= eps;
 * - unbiasedness of the batch path and of the one-report-at-a-time path (z-tests per cell);
 * - variance against the exact formula (sum of squared z over cells and repetitions);
 * - count-level simulation against the per-user path (per-cell means and variances,
 *   and the variance of the total for a `joint` simulation);
 * - wire format: round trip, every corruption rejected with MalformedReportError
 *   and nothing counted, seeded random garbage never crashes the parser;
 * - aggregator: batch = one-by-one = merged halves, counts additive, foreign
 *   aggregators and batches rejected, invalid inputs rejected.
 *
 * Usage, in a contributor's `my-oracle.test.ts`:
 * `describeOracleContract("my-oracle", (o) => createMyOracle(o));`
 */
export function describeOracleContract(
  name: string,
  factory: (options: OracleOptions) => FrequencyOracle<unknown>,
  options: OracleContractOptions = {},
): void {
  const configs = options.configs ?? [
    { eps: 1, domain: 8 },
    { eps: 0.5, domain: 37 },
    { eps: 3, domain: 3 },
  ];
  const seed = options.seed ?? 20180615;
  const auditSamples = options.auditSamples ?? 100_000;
  const unbiasedUsers = options.unbiasedUsers ?? 200_000;
  const varianceUsers = options.varianceUsers ?? 1_000;
  const varianceRepetitions = options.varianceRepetitions ?? 200;
  const simulationUsers = options.simulationUsers ?? 2_000;
  const perUserRepetitions = options.perUserRepetitions ?? 150;
  const simulatedRepetitions = options.simulatedRepetitions ?? 600;
  const zTolerance = options.zTolerance ?? 5;

  describe(`frequency-oracle contract: ${name}`, () => {
    configs.forEach(({ eps, domain }, configIndex) => {
      const oracle = factory({ eps, domain });
      const rngFor = (test: number) => seededRng(seed, configIndex * 64 + test);

      describe(`eps = ${eps}, D = ${domain}`, () => {
        it("declares consistent parameters and variance formulas", () => {
          expect(oracle.eps).toBe(eps);
          expect(oracle.domain).toBe(domain);
          expect(oracle.p).toBeGreaterThan(oracle.q);
          const { p, q } = oracle;
          const n = 12_345;
          expect(oracle.variance(n)).toBeCloseTo((q * (1 - q)) / (n * (p - q) ** 2), 15);
          expect(Math.abs(oracle.variance(n, 0) - oracle.variance(n)) / oracle.variance(n)).toBeLessThan(
            1e-12,
          );
          const f = 0.3;
          const exact = (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (n * (p - q) ** 2);
          expect(Math.abs(oracle.variance(n, f) - exact) / exact).toBeLessThan(1e-12);
          const other = factory({ eps: eps * 1.5, domain });
          expect(other.fingerprint).not.toBe(oracle.fingerprint);
          expect(factory({ eps, domain }).fingerprint).toBe(oracle.fingerprint);
        });

        it("passes the exact privacy check (worst log-ratio <= eps + 1e-9)", () => {
          const worst = exactWorstLogRatio(oracle);
          expect(worst).toBeLessThanOrEqual(eps + EXACT_PRIVACY_TOLERANCE);
          expect(worst).toBeGreaterThan(0);
        });

        it("passes the empirical audit of its real sampler (99% lower bound <= eps)", () => {
          const audit = empiricalAudit(oracle, { samples: auditSamples, rng: rngFor(1) });
          expect(audit.epsLower).toBeLessThanOrEqual(eps);
          expect(Number.isFinite(audit.epsLower)).toBe(true);
        });

        it("is unbiased on the batch path and on the one-report path (per-cell z-tests)", () => {
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
        });

        it("has the variance of its exact formula (squared z over cells and repetitions)", () => {
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
        });

        it("simulates counts with the per-user distribution (per-cell means and variances)", () => {
          const counts = contractHistogram(domain, simulationUsers);
          const values = valuesFromHistogram(counts);
          const rng = rngFor(4);
          const perUser = Array.from({ length: perUserRepetitions }, () =>
            perUserCounts(oracle, values, rng),
          );
          const simulated = Array.from({ length: simulatedRepetitions }, () =>
            oracle.simulateCounts(counts, rng),
          );
          for (const drawn of simulated) {
            for (let x = 0; x < domain; x++) {
              expect(Number.isInteger(drawn[x]!) && drawn[x]! >= 0 && drawn[x]! <= simulationUsers).toBe(
                true,
              );
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
        });

        it("round-trips reports through the wire format and rejects every corruption", () => {
          const rng = rngFor(5);
          const values = Uint32Array.from({ length: 200 }, (_, i) => i % domain);
          const batch = oracle.perturbBatch(values, rng);
          for (let i = 0; i < batch.count; i++) {
            const report = oracle.reportAt(batch, i);
            const bytes = oracle.encode(report);
            const decoded = oracle.decode(bytes);
            expect(oracle.encode(decoded)).toEqual(bytes);
            for (let x = 0; x < domain; x++) {
              expect(oracle.supports(decoded, x)).toBe(oracle.supportsAt(batch.words, i * batch.stride, x));
            }
          }
          const bytes = oracle.encode(oracle.reportAt(batch, 0));
          const expectProblem = (input: unknown, problem: string) => {
            const aggregator = oracle.createAggregator();
            let thrown: unknown;
            try {
              aggregator.addEncoded(input as Uint8Array);
            } catch (error) {
              thrown = error;
            }
            expect(thrown).toBeInstanceOf(MalformedReportError);
            expect((thrown as MalformedReportError).problem).toBe(problem);
            expect(() => oracle.decode(input as Uint8Array)).toThrow(MalformedReportError);
            expect(aggregator.reports).toBe(0);
          };
          expectProblem("not bytes", "type");
          expectProblem(bytes.subarray(0, 2), "length");
          expectProblem(bytes.subarray(0, bytes.length - 1), "length");
          expectProblem(Uint8Array.of(...bytes, 0), "length");
          const badMagic = bytes.slice();
          badMagic[0] = 0x00;
          expectProblem(badMagic, "magic");
          const badVersion = bytes.slice();
          badVersion[1] = 99;
          expectProblem(badVersion, "version");
          const otherId = bytes.slice();
          otherId[3] = otherId[3] === 0x7a ? 0x79 : otherId[3]! + 1;
          expectProblem(otherId, "oracle");
          const otherFingerprint = bytes.slice();
          otherFingerprint[3 + oracle.id.length]! ^= 0x01;
          expectProblem(otherFingerprint, "fingerprint");
          const foreign = factory({ eps: eps * 1.5, domain });
          expect(() => foreign.decode(bytes)).toThrow(MalformedReportError);
          // All-ones payload: either a report the oracle can produce, or rejected as a value problem.
          const ones = bytes.slice();
          ones.fill(0xff, 7 + oracle.id.length);
          try {
            const decoded = oracle.decode(ones);
            expect(oracle.encode(decoded)).toEqual(ones);
          } catch (error) {
            expect(error).toBeInstanceOf(MalformedReportError);
            expect((error as MalformedReportError).problem).toBe("value");
          }
        });

        it("never crashes on, and never counts, random garbage (seeded fuzzing)", () => {
          const rng = rngFor(6);
          const valid = oracle.encode(oracle.perturb(0, rng));
          const aggregator = oracle.createAggregator();
          let accepted = 0;
          for (let trial = 0; trial < 2000; trial++) {
            let input: Uint8Array;
            if (trial % 2 === 0) {
              input = new Uint8Array(rng.nextUint32() % 40);
              for (let i = 0; i < input.length; i++) input[i] = rng.nextUint32() & 0xff;
            } else {
              input = valid.slice();
              const flips = 1 + (rng.nextUint32() % 3);
              for (let f = 0; f < flips; f++)
                input[rng.nextUint32() % input.length] = rng.nextUint32() & 0xff;
            }
            const before = aggregator.reports;
            try {
              aggregator.addEncoded(input);
              accepted += 1;
              // Whatever was accepted is a report the oracle can produce, byte for byte.
              expect(oracle.encode(oracle.decode(input))).toEqual(input);
              expect(aggregator.reports).toBe(before + 1);
            } catch (error) {
              expect(error).toBeInstanceOf(MalformedReportError);
              expect(aggregator.reports).toBe(before);
            }
          }
          expect(aggregator.reports).toBe(accepted);
        });

        it("aggregates additively: batch = one by one = merged halves; foreign input rejected", () => {
          const rng = rngFor(7);
          const values = valuesFromHistogram(contractHistogram(domain, 3000));
          const batch = oracle.perturbBatch(values, rng);
          const whole = oracle.createAggregator();
          whole.addBatch(batch);
          const direct = new Float64Array(domain);
          for (let i = 0; i < batch.count; i++) {
            for (let x = 0; x < domain; x++)
              if (oracle.supportsAt(batch.words, i * batch.stride, x)) direct[x]! += 1;
          }
          expect(whole.counts(), "counts are the numbers of supporting reports").toEqual(direct);
          const oneByOne = oracle.createAggregator();
          for (let i = 0; i < batch.count; i++) oneByOne.add(oracle.reportAt(batch, i));
          expect(oneByOne.counts()).toEqual(whole.counts());
          const half = Math.floor(batch.count / 2);
          const first = oracle.createAggregator();
          const second = oracle.createAggregator();
          first.addBatch({ ...batch, count: half, words: batch.words.subarray(0, half * batch.stride) });
          second.addBatch({
            ...batch,
            count: batch.count - half,
            words: batch.words.subarray(half * batch.stride),
          });
          first.merge(second);
          expect(first.reports).toBe(whole.reports);
          expect(first.counts()).toEqual(whole.counts());
          expect(first.estimate()).toEqual(whole.estimate());
          const simulated = oracle.simulateCounts(contractHistogram(domain, 500), rng);
          first.addCounts(simulated, 500);
          const expected = whole.counts().map((c, x) => c + simulated[x]!);
          expect(first.counts()).toEqual(expected);
          expect(first.reports).toBe(whole.reports + 500);

          const foreign = factory({ eps: eps * 1.5, domain });
          expect(() => whole.merge(foreign.createAggregator())).toThrow(MalformedReportError);
          expect(() => whole.addBatch(foreign.perturbBatch(values.subarray(0, 10), rng))).toThrow(
            MalformedReportError,
          );
          expect(() => oracle.perturb(domain, rng)).toThrow(InvalidParameterError);
          expect(() => oracle.perturb(-1, rng)).toThrow(InvalidParameterError);
          expect(() => oracle.perturb(0.5, rng)).toThrow(InvalidParameterError);
          expect(() => oracle.perturbBatch([0, domain], rng)).toThrow(InvalidParameterError);
          expect(() => oracle.simulateCounts(new Float64Array(domain + 1), rng)).toThrow(
            InvalidParameterError,
          );
          expect(() => oracle.estimate(new Float64Array(domain), 0)).toThrow(InvalidParameterError);
          expect(whole.reports).toBe(batch.count);
        });

        it("uses a cryptographic source when no rng is given", () => {
          const report = oracle.perturb(domain - 1);
          const aggregator = oracle.createAggregator();
          aggregator.add(report);
          aggregator.addBatch(oracle.perturbBatch([0, domain - 1]));
          expect(aggregator.reports).toBe(3);
        });
      });
    });
  });
}
