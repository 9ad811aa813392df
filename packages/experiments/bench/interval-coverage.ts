/**
 * Coverage of CALM's 95% intervals: for every (dataset, k, eps), R
 * repetitions of the count-level simulation on a fixed population, Q random
 * k-way queries; prints coverage over (cell, repetition) pairs, the worst
 * per-cell coverage, mean width, the path taken and the seconds spent.
 *
 * Run (from packages/experiments):
 *   npx tsx bench/interval-coverage.ts \
 *     [--reps 200] [--queries 10] [--eps 0.2,1,2] [--k 2,3] [--data bn,adult] [--n 65536] [--c 4] [--l k]
 * bn: 12 attributes (cardinalities 2-4) from a random Bayesian network (strength 0.6, 2 parents), n users.
 * adult: UCI Adult from /work/shared/datasets/adult (45,222 rows), categories capped at --c (default 4).
 * --l k (default) plans all C(d, k) views of size k so every query is covered (analytic path);
 * --l auto lets Algorithm 1 choose (uncovered queries take the maximum-entropy answer and the bound-based interval).
 */
import { binomialCoefficient } from "@calm-ldp/calm-core";
import { generateBayesNet } from "@calm-ldp/datasets";
import { loadAdult } from "@calm-ldp/datasets/node";
import { seededRng } from "@calm-ldp/random";
import { calmIntervalCoverage } from "../src/interval-coverage.js";
import { argument } from "./support.js";

const reps = Number(argument("reps", "200"));
const queries = Number(argument("queries", "10"));
const epsList = argument("eps", "0.2,1,2").split(",").map(Number);
const kList = argument("k", "2,3").split(",").map(Number);
const dataList = argument("data", "bn,adult").split(",");
const n = Number(argument("n", "65536"));
const c = Number(argument("c", "4"));
const lMode = argument("l", "k");

for (const data of dataList) {
  const store =
    data === "bn"
      ? generateBayesNet(
          { n, d: 12, cardinality: [2, 3, 4, 2, 3, 2, 4, 2, 3, 2, 2, 3], maxParents: 2, strength: 0.6 },
          seededRng(18),
        ).store
      : (await loadAdult("/work/shared/datasets/adult", { c })).store;
  const cards = store.schema.attributes.map((a) => a.labels.length);
  console.log(`# ${data}: n=${store.size}, d=${cards.length}, cardinalities ${cards.join(",")}`);
  for (const k of kList)
    for (const eps of epsList) {
      const started = performance.now();
      const result = calmIntervalCoverage({
        store,
        eps,
        k,
        repetitions: reps,
        queries,
        seed: 18,
        plan: lMode === "k" ? { l: k, m: binomialCoefficient(cards.length, k) } : {},
      });
      const seconds = (performance.now() - started) / 1000;
      console.log(
        `${data} k=${k} eps=${eps} l=${result.l} m=${result.m}: coverage ${result.coverage.toFixed(4)} ` +
          `worst cell ${result.worstCell.toFixed(3)} pairs ${result.pairs} mean width ${result.meanWidth.toFixed(4)} ` +
          `analytic ${result.analytic} bounds ${result.bounds} bootstrap ${result.bootstrap} (${seconds.toFixed(1)} s)`,
      );
      for (const [method, t] of Object.entries(result.byMethod))
        if (t.pairs > 0)
          console.log(
            `  ${method}: coverage ${t.coverage.toFixed(4)} mean width ${t.meanWidth.toFixed(4)} pairs ${t.pairs}`,
          );
    }
}
