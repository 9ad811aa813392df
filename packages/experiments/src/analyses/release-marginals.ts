import { createMethod, queryInterval, runMethod } from "@calm-ldp/baselines";
import { type LoadedDataset, sampleUsers } from "@calm-ldp/datasets";
import { CannotRunError } from "@calm-ldp/errors";
import type { RecordStore } from "@calm-ldp/marginal-algebra";
import { deriveSeed, type Rng, repetitionSeed, seededRng } from "@calm-ldp/random";
import { epsStream, methodStream } from "../seed-paths.js";
import type { Release } from "./api.js";

/**
 * Run every record of `store` through a method of `@calm-ldp/baselines` (CALM or
 * a baseline; count-level simulation where the method has it, per user otherwise)
 * at privacy budget `eps`, tuned for k-way queries, and answer `queries`. A
 * method that refuses the setting (too large, too few users) or fails returns its
 * error message instead of throwing. With `options.intervals`, also each answer
 * with its 95% interval and covariance where the method has them (baselines'
 * `INTERVAL_METHODS`; undefined for a query whose interval has no covariance,
 * i.e. CALM's bound-based intervals of maximum-entropy answers). Cost: the
 * method's own.
 */
export function releaseMarginals(
  id: string,
  store: RecordStore,
  eps: number,
  k: number,
  queries: readonly (readonly number[])[],
  rng: Rng,
  methodOptions: Readonly<Record<string, unknown>> = {},
  options: { readonly intervals?: boolean } = {},
): Release {
  try {
    const method = createMethod(id, methodOptions);
    const plan = method.plan({ schema: store.schema, n: store.size, eps, k });
    const { aggregator } = runMethod(method, plan, store, rng);
    const synopsis = method.estimate(plan, aggregator);
    const tables = queries.map((q) => synopsis.query(q));
    if (!options.intervals) return { tables };
    const intervals = queries.map((q) => {
      try {
        return queryInterval(id, synopsis, q, { interval: 0.95, covariance: true });
      } catch (error) {
        // CALM's maximum-entropy answers get bound-based intervals, which have no covariance.
        if (error instanceof CannotRunError) return undefined;
        throw error;
      }
    });
    return { tables, intervals };
  } catch (error) {
    return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

/** The settings the analysis runners share for the methods' runs. */
interface ReleaseSettings {
  readonly eps: readonly number[];
  readonly methods: readonly string[];
  readonly seed: number;
  readonly methodOptions?: Readonly<Record<string, Record<string, unknown>>>;
}

/** One method's release at one eps, and when its run started (`performance.now()`, ms). */
export interface MethodRelease {
  readonly eps: number;
  readonly method: string;
  readonly release: Release;
  readonly start: number;
}

/**
 * @internal The harness loop of the analysis runners: for every eps, then every
 * method of `config`, the method's `releaseMarginals` of `queries` from `store`
 * (tuned for k-way queries, options `config.methodOptions[method]`), with the seed
 * `deriveSeed(repetitionSeed(seed, rep), ...path, epsStream(eps), methodStream(method))`
 * (keyed by values, so a result does not depend on which other eps or methods
 * run). A generator, so a runner may await between releases. Cost: the methods' runs.
 */
export function* methodReleases(
  config: ReleaseSettings,
  rep: number,
  path: readonly number[],
  store: RecordStore,
  k: number,
  queries: readonly (readonly number[])[],
  options: { readonly intervals?: boolean } = {},
): Generator<MethodRelease> {
  const root = repetitionSeed(config.seed, rep);
  for (const eps of config.eps) {
    for (const method of config.methods) {
      const start = performance.now();
      const rng = seededRng(deriveSeed(root, ...path, epsStream(eps), methodStream(method)));
      const release = releaseMarginals(
        method,
        store,
        eps,
        k,
        queries,
        rng,
        config.methodOptions?.[method],
        options,
      );
      yield { eps, method, release, start };
    }
  }
}

/** @internal Seconds since `start` (`performance.now()`, ms). */
export function secondsSince(start: number): number {
  return (performance.now() - start) / 1000;
}

/**
 * @internal Repetition `rep`'s users: n drawn from the population (with replacement
 * when n exceeds its rows), seed `deriveSeed(repetitionSeed(seed, rep), 1)`. O(n d).
 */
export function repetitionUsers(
  population: LoadedDataset,
  n: number,
  seed: number,
  rep: number,
): LoadedDataset {
  return sampleUsers(population, n, seededRng(deriveSeed(repetitionSeed(seed, rep), 1)));
}

/** @internal The progress line of one release: `rep R eps=E method`, and why it could not run. */
export function releaseMessage(rep: number, { eps, method, release }: MethodRelease): string {
  return `rep ${rep} eps=${eps} ${method}${"error" in release ? ` cannot run (${release.error})` : ""}`;
}
