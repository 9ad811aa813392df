import { chiSquareIndependence, chiSquareQuantile, noiseAwareChiSquare } from "@calm-ldp/analyses";
import type { LoadedDataset } from "@calm-ldp/datasets";
import { fail } from "@calm-ldp/errors";
import { contingencyTable } from "@calm-ldp/marginal-algebra";
import { deriveSeed, seededRng } from "@calm-ldp/random";
import { epsStream, methodStream } from "../seed-paths.js";
import type { AnalysisProgress, IndependenceConfig, IndependenceRow } from "./api.js";
import { checkAnalysis } from "./check-analysis.js";
import { methodReleases, releaseMessage, repetitionUsers, secondsSince } from "./release-marginals.js";

/**
 * The association-testing experiment of Cormode et al. §6.1 (Figure 7). Per
 * repetition, n users are drawn from the population (with replacement when n
 * exceeds its rows, seed `deriveSeed(seed, rep, 1)`); for every pair the
 * non-private chi-square test runs on the users' true 2-way marginal, and every
 * method releases the pairs' 2-way marginals (tuned for k = 2; seed `(rep, 2, eps,
 * method)`, keyed by values) on which the same test runs (`chiSquareIndependence`,
 * 95% by default, no noise correction). Each row compares the two decisions: a
 * type I error is a private rejection where the non-private test keeps
 * independence, a type II error the reverse. (Cormode et al. call the failure to
 * reject "type I"; the usual naming, used here, calls it type II.) A method that
 * refuses the setting gets rows with NaN statistics and its error. Unless
 * `config.noiseAware` is false, methods with intervals also get the noise-aware
 * test (`noiseAwareChiSquare`: parametric bootstrap of the statistic under the
 * independence null fitted from the private margins, 1,000 null draws) and its
 * decisions. Cost: the methods' runs plus O(n) per pair for the true marginals.
 */
export function runIndependenceTests(
  population: LoadedDataset,
  config: IndependenceConfig,
  options: AnalysisProgress = {},
): IndependenceRow[] {
  const where = "runIndependenceTests";
  checkAnalysis(where, config, population);
  const d = population.schema.attributes.length;
  if (!Array.isArray(config.pairs) || config.pairs.length === 0)
    fail(where, "pairs must be a non-empty list", config.pairs);
  const pairs = config.pairs.map((pair) => {
    const [a, b] = pair;
    if (!(Number.isInteger(a) && Number.isInteger(b) && a >= 0 && b >= 0 && a < d && b < d && a !== b))
      fail(where, `every pair must be two distinct attribute indices in [0, ${d})`, pair as number[]);
    return (a < b ? [a, b] : [b, a]) as [number, number];
  });
  const alpha = config.alpha ?? 0.05;
  const attributes = population.schema.attributes;
  const criticals = pairs.map(([a, b]) =>
    chiSquareQuantile(1 - alpha, (attributes[a]!.labels.length - 1) * (attributes[b]!.labels.length - 1)),
  );
  const total = config.reps * config.eps.length * config.methods.length;
  let done = 0;
  const out: IndependenceRow[] = [];
  for (let rep = 0; rep < config.reps; rep++) {
    const sample = repetitionUsers(population, config.n, config.seed, rep);
    const truths = pairs.map((pair) =>
      chiSquareIndependence(contingencyTable(sample.store, pair), config.n, { alpha }),
    );
    const intervals = config.noiseAware !== false;
    for (const run of methodReleases(config, rep, [2], sample.store, 2, pairs, { intervals })) {
      const { eps, method, release } = run;
      const seconds = secondsSince(run.start);
      pairs.forEach((pair, p) => {
        const truth = truths[p]!;
        const base = {
          method,
          pair,
          n: config.n,
          eps,
          rep,
          trueStatistic: truth.statistic,
          trueReject: truth.reject,
        };
        if ("error" in release) {
          out.push({
            ...base,
            statistic: Number.NaN,
            critical: criticals[p]!,
            reject: false,
            typeI: false,
            typeII: false,
            seconds,
            error: release.error,
          });
          return;
        }
        const test = chiSquareIndependence(release.tables[p]!, config.n, { alpha });
        const interval = release.intervals?.[p];
        const aware =
          interval?.covariance === undefined
            ? undefined
            : noiseAwareChiSquare(interval as Required<typeof interval>, config.n, {
                alpha,
                rng: seededRng(deriveSeed(config.seed, rep, 3, epsStream(eps), methodStream(method), p)),
              });
        out.push({
          ...base,
          statistic: test.statistic,
          critical: criticals[p]!,
          reject: test.reject,
          typeI: test.reject && !truth.reject,
          typeII: !test.reject && truth.reject,
          seconds,
          ...(aware
            ? {
                noiseAwarePValue: aware.pValue,
                noiseAwareReject: aware.reject,
                noiseAwareTypeI: aware.reject && !truth.reject,
                noiseAwareTypeII: !aware.reject && truth.reject,
              }
            : {
                noiseAwareUnavailable:
                  interval === undefined
                    ? "the release has no interval for this pair (e.g. a CALM pair that no view covers: a maximum-entropy answer)"
                    : "the pair's interval has no covariance",
              }),
        });
      });
      options.onProgress?.(++done, total, releaseMessage(rep, run));
    }
  }
  return out;
}
