import { queryInterval } from "@calm-ldp/baselines";
import {
  allQueries,
  contingencyTable,
  type MarginalTable,
  meanAnswerErrors,
  randomQueries,
} from "@calm-ldp/marginal-algebra";
import { deriveSeed, repetitionSeed, seededRng } from "@calm-ldp/random";
import type { ExperimentConfig, MethodFactory, MethodRun } from "./api.js";
import type { DataSource } from "./data-source.js";
import { runPopulation } from "./run-method.js";
import { methodStream } from "./seed-paths.js";

/** Stream indices under `deriveSeed(repetitionSeed(config.seed, rep), ...)`. */
export const SEED_PATHS = Object.freeze({ sample: 1, queries: 2, method: 3 });

/** Options of {@link runRepetition}. */
export interface RepetitionOptions {
  /** Called after every method run. */
  onRun?(run: MethodRun): void;
  /** Wall clock in milliseconds (default `performance.now`). */
  now?(): number;
}

/**
 * One repetition of an experiment: draw the repetition's population sample and
 * its queries (the same for every method and eps), then for every eps and method:
 * plan, collect (count-level or per-user, see {@link runPopulation}), estimate, and
 * answer every query; record mean SSE and TVD over the queries against the
 * sample's exact marginals, and the wall time. A method that refuses a setting
 * (e.g. too large) is recorded with its error and NaN errors, not thrown.
 * Seeds, under the repetition's root r = `repetitionSeed(seed, rep)` (distinct for
 * distinct (seed, rep)): sample `deriveSeed(r, 1)`, queries `deriveSeed(r, 2)`,
 * method runs `deriveSeed(r, 3, epsIndex, methodStream(id))` (`seed-paths.ts`): a
 * method's stream is named by its id (not its position in the list), and methods
 * that share another's reports (`calm-plus` on `calm`'s) get that method's stream,
 * so they are compared on the same reports.
 * Cost: the methods' own, plus O(n k) per query for the exact marginals.
 */
export function runRepetition(
  config: ExperimentConfig,
  source: DataSource,
  rep: number,
  factory: MethodFactory,
  options: RepetitionOptions = {},
): MethodRun[] {
  const now = options.now ?? (() => performance.now());
  const root = repetitionSeed(config.seed, rep);
  const sample = source.sample(rep, deriveSeed(root, SEED_PATHS.sample));
  const store = sample.store;
  const queries =
    config.queries === "all"
      ? allQueries(config.d, config.k)
      : randomQueries(seededRng(deriveSeed(root, SEED_PATHS.queries)), config.d, config.k, config.queries);
  const truths: MarginalTable[] = queries.map((q) => contingencyTable(store, q));
  const path = config.path ?? "counts";
  const runs: MethodRun[] = [];
  config.eps.forEach((eps, epsIndex) => {
    config.methods.forEach((id) => {
      const rng = seededRng(deriveSeed(root, SEED_PATHS.method, epsIndex, methodStream(id)));
      const start = now();
      let run: MethodRun;
      try {
        const method = factory(id, config.methodOptions?.[id]);
        const plan = method.plan({ schema: store.schema, n: store.size, eps, k: config.k });
        const aggregator = runPopulation(method, plan, store, rng, path);
        const synopsis = method.estimate(plan, aggregator);
        const errors = meanAnswerErrors(synopsis, queries, truths);
        const details = planDetails(plan as unknown as Record<string, unknown>);
        const seconds = (now() - start) / 1000;
        const intervals =
          config.interval === undefined
            ? undefined
            : intervalCoverage(id, synopsis, queries, truths, config.interval, now);
        run = {
          method: id,
          eps,
          rep,
          sse: errors.sse,
          tvd: errors.tvd,
          seconds,
          ...(details ? { details } : {}),
          ...(intervals ?? {}),
        };
      } catch (error) {
        const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        run = {
          method: id,
          eps,
          rep,
          sse: Number.NaN,
          tvd: Number.NaN,
          seconds: (now() - start) / 1000,
          error: message,
        };
      }
      runs.push(run);
      options.onRun?.(run);
    });
  });
  return runs;
}

/**
 * Coverage of a method's intervals on the repetition's queries: the fraction of
 * (query, cell) pairs whose true fraction (the sample's exact marginal) lies in
 * [lower, upper], and the mean width; undefined for a method without intervals.
 * Cost: the method's interval queries.
 */
function intervalCoverage(
  id: string,
  synopsis: Parameters<typeof queryInterval>[1],
  queries: readonly (readonly number[])[],
  truths: readonly MarginalTable[],
  level: number,
  now: () => number,
): { coverage: number; width: number; intervalSeconds: number } | undefined {
  const start = now();
  let covered = 0;
  let pairs = 0;
  let width = 0;
  for (let i = 0; i < queries.length; i++) {
    const answer = queryInterval(id, synopsis, queries[i]!, { interval: level });
    if (answer === undefined) return undefined;
    const truth = truths[i]!.cells;
    let total = 0;
    for (const x of truth) total += x;
    truth.forEach((x, a) => {
      const f = x / total;
      pairs++;
      width += answer.upper[a]! - answer.lower[a]!;
      if (f >= answer.lower[a]! && f <= answer.upper[a]!) covered++;
    });
  }
  return { coverage: covered / pairs, width: width / pairs, intervalSeconds: (now() - start) / 1000 };
}

/** The plan facts worth recording (CALM's l and m, a method's group count). */
function planDetails(plan: Record<string, unknown>): Record<string, unknown> | undefined {
  const details: Record<string, unknown> = {};
  for (const key of ["l", "m", "groups", "oracle"]) {
    const value = plan[key];
    if (typeof value === "number" || typeof value === "string") details[key] = value;
  }
  return Object.keys(details).length > 0 ? details : undefined;
}
