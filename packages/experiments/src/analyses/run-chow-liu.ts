import { chowLiuTree, mutualInformation, treeWeight } from "@calm-ldp/analyses";
import type { LoadedDataset } from "@calm-ldp/datasets";
import { allQueries, contingencyTable } from "@calm-ldp/marginal-algebra";
import type { AnalysisProgress, ChowLiuConfig, ChowLiuRow } from "./api.js";
import { checkAnalysis } from "./check-analysis.js";
import { methodReleases, releaseMessage, repetitionUsers, secondsSince } from "./release-marginals.js";

/**
 * The Chow-Liu experiment of Cormode et al. §6.2 (Figure 8). Per repetition, n
 * users are drawn from the population (with replacement when n exceeds its rows;
 * seed `deriveSeed(seed, rep, 1)`); the true mutual information of every pair is
 * computed from their exact 2-way marginals, and the non-private Chow-Liu tree is
 * the maximum spanning tree on it (its total is `optimum`). Every method releases
 * all C(d, 2) 2-way marginals (tuned for k = 2; seed `(rep, 2, eps, method)`, keyed by values); the tree learnt from the private mutual information is scored
 * by the TRUE mutual information of its edges, and by how many edges it shares
 * with the non-private tree. A `nonoise` row per (eps, rep) carries the optimum.
 * Mutual information in nats. Cost: the methods' runs plus O(d^2 (n + |V|)).
 */
export function runChowLiu(
  population: LoadedDataset,
  config: ChowLiuConfig,
  options: AnalysisProgress = {},
): ChowLiuRow[] {
  checkAnalysis("runChowLiu", config, population);
  const d = population.schema.attributes.length;
  const pairs = allQueries(d, 2);
  const index = (i: number, j: number) => i * d + j;
  const total = config.reps * config.eps.length * config.methods.length;
  let done = 0;
  const out: ChowLiuRow[] = [];
  for (let rep = 0; rep < config.reps; rep++) {
    const sample = repetitionUsers(population, config.n, config.seed, rep);
    const trueMi = new Float64Array(d * d);
    for (const [i, j] of pairs as [number, number][])
      trueMi[index(i, j)] = mutualInformation(contingencyTable(sample.store, [i, j]));
    const truth = (i: number, j: number) => trueMi[index(i, j)]!;
    const best = chowLiuTree(d, truth);
    const bestEdges = new Set(best.edges.map(([i, j]) => index(i, j)));
    for (const eps of config.eps)
      out.push({
        method: "nonoise",
        n: config.n,
        eps,
        rep,
        mutualInformation: best.weight,
        optimum: best.weight,
        sharedEdges: d - 1,
        seconds: 0,
      });
    for (const run of methodReleases(config, rep, [2], sample.store, 2, pairs)) {
      const { eps, method, release } = run;
      const base = { method, n: config.n, eps, rep, optimum: best.weight };
      if ("error" in release) {
        out.push({
          ...base,
          mutualInformation: Number.NaN,
          sharedEdges: 0,
          seconds: 0,
          error: release.error,
        });
      } else {
        const privateMi = new Float64Array(d * d);
        release.tables.forEach((table, p) => {
          const [i, j] = pairs[p] as [number, number];
          privateMi[index(i, j)] = mutualInformation(table);
        });
        const tree = chowLiuTree(d, (i, j) => privateMi[index(i, j)]!);
        out.push({
          ...base,
          mutualInformation: treeWeight(tree, truth),
          sharedEdges: tree.edges.filter(([i, j]) => bestEdges.has(index(i, j))).length,
          seconds: secondsSince(run.start),
        });
      }
      options.onProgress?.(++done, total, releaseMessage(rep, run));
    }
  }
  return out;
}
