/**
 * calm-plus's joint estimator (graphical model fitted by mirror descent) against the
 * pooled one on ONE repetition's reports: SSE of 50 random k-way queries, the fit's
 * loss, steps, convergence and time for several step caps (how far the optimisation
 * must go before the answers stop changing), and the junction tree's size.
 *
 * Run (from packages/experiments):
 *   nice npx tsx bench/calm-plus-joint.ts --data nltcs --d 16 --k 3 --n 65536 --eps 0.2,0.5 \
 *     [--c 3] [--caps 50,200,1000,4000] [--targets shrunk,raw] [--seed 1] [--rep 0]
 */
import { type CalmSynopsis, estimateCalmPlus, planCalm, simulateCalm } from "@calm-ldp/calm-core";
import { sse } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { argument, benchPopulation, repetitionSample, reportsSeed } from "./support.js";

const { population, d, label } = await benchPopulation({ data: "nltcs", d: 16 });
const k = Number(argument("k", "3"));
const n = Number(argument("n", String(2 ** 16)));
const epsList = argument("eps", "0.2,0.5").split(",").map(Number);
const caps = argument("caps", "50,200,1000,4000").split(",").map(Number);
// A joint variant: targets "shrunk" | "raw", optionally "+maxent" (answers by max entropy over the model's views + prior pairs).
const targetsList = argument("targets", "shrunk,raw").split(",");
const seed = Number(argument("seed", "1"));
const rep = Number(argument("rep", "0"));
// Same sampling, queries and reports as bench/calm-plus.ts for (seed, rep).
const { store, qs, truths } = repetitionSample(population, { n, d, k, queries: 50, seed, rep });
console.log(`joint vs pooled: ${label} k=${k} n=${n} seed ${seed} rep ${rep}`);
for (const eps of epsList) {
  const plan = planCalm({ schema: store.schema, n, eps, k });
  const aggregator = simulateCalm(plan, store, seededRng(reportsSeed(seed, rep, eps)));
  const score = (s: CalmSynopsis) =>
    qs.reduce((a, q, i) => a + sse(s.query(q).cells, truths[i]!), 0) / qs.length;
  let started = performance.now();
  const pooled = score(estimateCalmPlus(plan, aggregator));
  console.log(
    `eps ${eps} pooled: SSE ${pooled.toExponential(3)} (${(performance.now() - started).toFixed(0)} ms)`,
  );
  for (const targets of targetsList)
    for (const maxIterations of caps) {
      started = performance.now();
      const synopsis = estimateCalmPlus(plan, aggregator, {
        estimator: "joint",
        joint: {
          targets: targets.startsWith("raw") ? "raw" : "shrunk",
          answers: targets.endsWith("+maxent") ? "maxent" : "model",
          maxIterations,
        },
      });
      const value = score(synopsis);
      const j = synopsis.joint!;
      console.log(
        `eps ${eps} joint ${targets} cap ${maxIterations}: SSE ${value.toExponential(3)} ratio pooled/joint ${(pooled / value).toFixed(3)} loss ${j.loss?.toExponential(4)} steps ${j.iterations} converged ${j.converged} clique ${j.largestClique} (${j.totalCells} in all) ${(performance.now() - started).toFixed(0)} ms${j.fallback ? ` FALLBACK ${j.fallback}` : ""}`,
      );
    }
}
