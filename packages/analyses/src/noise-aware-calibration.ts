import { createMethod, queryInterval, runMethod } from "@calm-ldp/baselines";
import { createRecordStore, type RecordStore, uniformSchema } from "@calm-ldp/marginal-algebra";
import { deriveSeed, seededRng } from "@calm-ldp/random";
import { fail } from "./errors.js";
import { noiseAwareChiSquare } from "./noise-aware-chi-square.js";

/** Settings of {@link rejectionRates}. */
export interface RejectionRateConfig {
  /** The population every run collects from (fixed; each run redraws groups and noise). */
  readonly store: RecordStore;
  /** The attribute pair tested. */
  readonly pair: readonly [number, number];
  /** Methods with intervals (baselines' `INTERVAL_METHODS`), e.g. calm, inpht, margps. */
  readonly methods: readonly string[];
  readonly eps: readonly number[];
  /** Runs per (method, eps). */
  readonly runs: number;
  readonly seed: number;
  readonly alpha?: number;
  /** Null replicates of the noise-aware test (default 500). */
  readonly replicates?: number;
}

/** Rejection rates of the noise-aware and the plug-in test for one (method, eps). */
export interface RejectionRate {
  readonly method: string;
  readonly eps: number;
  readonly runs: number;
  /** Fraction of runs where the noise-aware test rejected independence. */
  readonly noiseAware: number;
  /** Fraction of runs where the plug-in chi-square test (noise ignored) rejected. */
  readonly plugIn: number;
  readonly seconds: number;
}

/**
 * How often each test rejects independence of `pair` over repeated private
 * collections from one population (each run: the method's count-level
 * simulation, or per user where it has none, tuned for k = 2, then the pair's
 * linear answer with its covariance). On a pair that is independent in the
 * population these are type I error rates; on a dependent pair, powers. Cost:
 * runs x (one collection + one estimate + the test's B null draws) per (method, eps).
 */
export function rejectionRates(config: RejectionRateConfig): RejectionRate[] {
  const where = "rejectionRates";
  const { store, pair, methods, eps, runs, seed } = config;
  if (!(Number.isInteger(runs) && runs >= 1)) fail(where, "runs must be an integer >= 1", runs);
  const alpha = config.alpha ?? 0.05;
  const out: RejectionRate[] = [];
  for (const id of methods) {
    const method = createMethod(id);
    for (const e of eps) {
      const started = performance.now();
      const plan = method.plan({ schema: store.schema, n: store.size, eps: e, k: 2 });
      let noiseAware = 0;
      let plugIn = 0;
      for (let r = 0; r < runs; r++) {
        const { aggregator } = runMethod(method, plan, store, seededRng(deriveSeed(seed, r, 1)));
        const synopsis = method.estimate(plan, aggregator);
        const answer = queryInterval(id, synopsis, pair, { interval: 1 - alpha, covariance: true });
        if (answer?.covariance === undefined)
          fail(where, "every method must give intervals with a covariance (baselines' INTERVAL_METHODS)", id);
        const test = noiseAwareChiSquare(answer as Required<typeof answer>, store.size, {
          alpha,
          replicates: config.replicates ?? 500,
          rng: seededRng(deriveSeed(seed, r, 2)),
        });
        if (test.reject) noiseAware++;
        if (test.plugInPValue < alpha) plugIn++;
      }
      out.push({
        method: id,
        eps: e,
        runs,
        noiseAware: noiseAware / runs,
        plugIn: plugIn / runs,
        seconds: (performance.now() - started) / 1000,
      });
    }
  }
  return out;
}

/**
 * A binary population of n records over d attributes in which attributes 0 and
 * 1 are EXACTLY independent (every cell count is the product of the margins'
 * counts / n): attribute 0 = 1 for (r mod 8) < 3 (3/8), attribute 1 = 1 for
 * floor(r / 8) mod 4 = 0 (1/4), with n a multiple of 32; with `dependence` s > 0,
 * a fraction s of the records (every record with (r mod 1000) < 1000 s) copy
 * attribute 0 into attribute 1 instead. Attributes 2.. are fair coins from
 * `seed`. O(n d).
 */
export function independentPairStore(n: number, d: number, seed: number, dependence = 0): RecordStore {
  if (!(Number.isInteger(n) && n >= 32 && n % 32 === 0))
    fail("independentPairStore", "n must be a multiple of 32", n);
  if (!(Number.isInteger(d) && d >= 2)) fail("independentPairStore", "d must be an integer >= 2", d);
  const rng = seededRng(seed);
  const columns = Array.from({ length: d }, () => new Uint8Array(n));
  for (let r = 0; r < n; r++) {
    columns[0]![r] = r % 8 < 3 ? 1 : 0;
    columns[1]![r] = Math.floor(r / 8) % 4 === 0 ? 1 : 0;
    if (dependence > 0 && r % 1000 < 1000 * dependence) columns[1]![r] = columns[0]![r]!;
    for (let a = 2; a < d; a++) columns[a]![r] = rng.nextUint32() & 1;
  }
  return createRecordStore(uniformSchema(d), { columns });
}
