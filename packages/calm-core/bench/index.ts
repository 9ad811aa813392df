/**
 * CALM end to end at n = 2^20 users, d = 32 binary attributes, k = 8, eps = 1:
 * plan + count-level simulation + consistency/non-negativity + 50 random 8-way
 * queries (target <= 1 s), and the per-user path with cryptoRng (target <= 3 s).
 * Then calm-plus on the count-level path's reports: its estimate + the same 50
 * queries, timed against CALM's estimate + queries in the same run (target <= 3x).
 * Prints where the time goes. Run: `npx tsx bench/index.ts [--n 1048576] [--d 32] [--k 8] [--eps 1]`.
 */
import { randomQueries } from "@calm-ldp/marginal-algebra";
import { cryptoRng, seededRng } from "@calm-ldp/random";
import { estimateCalm, estimateCalmPlus, planCalm, simulateCalm } from "../src/index.js";
import { markovStore } from "../src/test-support.js";
import { argument } from "./arguments.js";

const n = argument("n", 2 ** 20);
const d = argument("d", 32);
const k = argument("k", 8);
const eps = argument("eps", 1);
const queries = argument("queries", 50);

const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;
const data = markovStore(seededRng(1), n, new Array(d).fill(2), 0.6);
console.log(
  `CALM benchmark: n = ${n}, d = ${d}, k = ${k}, eps = ${eps}, ${queries} random ${k}-way queries (data: Markov chain, stay 0.6)`,
);

for (const path of ["counts", "per-user"] as const) {
  const rng = path === "counts" ? seededRng(2) : cryptoRng();
  const timings: Record<string, number> = {};
  const total = process.hrtime.bigint();
  let t = process.hrtime.bigint();
  const plan = planCalm({ schema: data.schema, n, eps, k });
  timings.plan = ms(t);
  t = process.hrtime.bigint();
  const aggregator = simulateCalm(plan, data, rng, { path });
  timings[path === "counts" ? "count-level simulation" : "per-user perturb + aggregate"] = ms(t);
  t = process.hrtime.bigint();
  const synopsis = estimateCalm(plan, aggregator);
  timings["estimate + consistency + non-negativity"] = ms(t);
  t = process.hrtime.bigint();
  let checksum = 0;
  let maxIterations = 0;
  for (const query of randomQueries(seededRng(3), d, k, queries)) {
    const answer = synopsis.answer(query);
    checksum += answer.table.cells[0]!;
    maxIterations = Math.max(maxIterations, answer.diagnostics.iterations);
  }
  timings[`${queries} queries (max-ent)`] = ms(t);
  const seconds = ms(total) / 1000;
  console.log(
    `\npath ${path} (${path === "counts" ? "seededRng" : "cryptoRng"}): l = ${plan.l}, m = ${plan.m}, oracle ${plan.views[0]!.oracle}, post-processing rounds ${synopsis.postProcess?.rounds}, max IPF sweeps ${maxIterations}`,
  );
  for (const [what, time] of Object.entries(timings))
    console.log(`  ${what.padEnd(42)} ${time.toFixed(1).padStart(9)} ms`);
  console.log(
    `  ${"total".padEnd(42)} ${(seconds * 1000).toFixed(1).padStart(9)} ms   (target ${path === "counts" ? "1000" : "3000"} ms; checksum ${checksum.toFixed(6)})`,
  );
  if (path === "counts") {
    const calmEstimation =
      timings["estimate + consistency + non-negativity"]! + timings[`${queries} queries (max-ent)`]!;
    t = process.hrtime.bigint();
    const plus = estimateCalmPlus(plan, aggregator);
    const plusEstimate = ms(t);
    t = process.hrtime.bigint();
    for (const query of randomQueries(seededRng(3), d, k, queries)) plus.answer(query);
    const plusQueries = ms(t);
    console.log(
      `\ncalm-plus on the same reports: estimate ${plusEstimate.toFixed(1)} ms + ${queries} queries ${plusQueries.toFixed(1)} ms = ${(plusEstimate + plusQueries).toFixed(1)} ms; calm's estimate + queries ${calmEstimation.toFixed(1)} ms; ratio ${((plusEstimate + plusQueries) / calmEstimation).toFixed(2)}x (target <= 3x); with plan + simulation ${(timings.plan! + timings["count-level simulation"]! + plusEstimate + plusQueries).toFixed(1)} ms vs ${(timings.plan! + timings["count-level simulation"]! + calmEstimation).toFixed(1)} ms (${((timings.plan! + timings["count-level simulation"]! + plusEstimate + plusQueries) / (timings.plan! + timings["count-level simulation"]! + calmEstimation)).toFixed(2)}x)`,
    );
    // The joint estimator (graphical model): falls back to the pooled one when its junction tree is too big.
    t = process.hrtime.bigint();
    const joint = estimateCalmPlus(plan, aggregator, { estimator: "joint" });
    const jointEstimate = ms(t);
    t = process.hrtime.bigint();
    for (const query of randomQueries(seededRng(3), d, k, queries)) joint.answer(query);
    const jointQueries = ms(t);
    console.log(
      `calm-plus estimator "joint": ${joint.joint?.fallback ? `FELL BACK (${joint.joint.fallback}); ` : `junction tree ${joint.joint?.largestClique} cells (largest clique), ${joint.joint?.iterations} steps, converged ${joint.joint?.converged}; `}estimate ${jointEstimate.toFixed(1)} ms + ${queries} queries ${jointQueries.toFixed(1)} ms = ${(jointEstimate + jointQueries).toFixed(1)} ms; ratio to calm ${((jointEstimate + jointQueries) / calmEstimation).toFixed(2)}x`,
    );
  }
}
