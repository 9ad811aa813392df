/**
 * Speed of the baselines. Run: `npx tsx bench/index.ts` (in packages/baselines).
 *
 * 1. The nine mechanisms of Cormode et al.'s public code (InpRR, MargRR, InpHT,
 *    MargHT, InpPS, MargPS, InpOLH, InpCMS, InpHTCMS) at d = 8, k = 3, eps = 1,
 *    N = 2^16 i.i.d. Bernoulli(0.3) bits, end to end on the per-user path: plan,
 *    perturb every user with the real client kernel (batched), aggregate,
 *    estimate, answer all 56 three-way marginals. Target: <= 2 s for the nine.
 * 2. EM and InpEM at k = 6: time to answer one 6-way query (d = 16, n = 2^18,
 *    eps = 1). Target: <= 5 s per query.
 * 3. Every method's count-level (or per-user) run at d = 8, k = 3, n = 2^18.
 */
import { allQueries, randomQueries, uniformSchema } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { Bench } from "tinybench";
import type { EmSynopsis } from "../src/api.js";
import { CORMODE_CODE_METHODS, createMethod, METHOD_IDS, runMethod } from "../src/index.js";
import { bernoulliStore } from "./data.js";

let sink = 0;
const d = 8;
const k = 3;
const eps = 1;
const n = 2 ** 16;
const store = bernoulliStore(seededRng(1), n, d, 0.3);
const schema = uniformSchema(d);
const queries = allQueries(d, k);

console.log(
  `# 1. nine mechanisms, per-user path, d=${d} k=${k} eps=${eps} N=${n}, ${queries.length} queries`,
);
const bench = new Bench({ time: 0, iterations: 7, warmupIterations: 2 });
let seed = 100;
for (const id of CORMODE_CODE_METHODS) {
  const method = createMethod(id);
  bench.add(id, () => {
    const plan = method.plan({ schema, n, eps, k });
    const { aggregator } = runMethod(method, plan, store, seededRng(seed++), { path: "per-user" });
    const synopsis = method.estimate(plan, aggregator);
    for (const q of queries) sink += synopsis.query(q).cells[0]!;
  });
}
await bench.run();
console.log("method".padEnd(10), "best ms".padStart(9), "mean ms".padStart(9), "ns/user".padStart(9));
let best = 0;
let mean = 0;
for (const task of bench.tasks) {
  const latency = task.result!.latency;
  best += latency.min;
  mean += latency.mean;
  console.log(
    task.name.padEnd(10),
    latency.min.toFixed(1).padStart(9),
    latency.mean.toFixed(1).padStart(9),
    ((latency.min * 1e6) / n).toFixed(0).padStart(9),
  );
}
console.log(`total (nine)  best ${best.toFixed(0)} ms, mean ${mean.toFixed(0)} ms (target <= 2000 ms)\n`);

console.log("# 2. EM at k = 6: one 6-way query, d=16 n=2^18 eps=1 (reports collected per user first)");
{
  const bigN = 2 ** 18;
  const data = bernoulliStore(seededRng(2), bigN, 16, 0.3);
  const six = randomQueries(seededRng(3), 16, 6, 5);
  for (const id of ["em", "inpem"]) {
    const method = createMethod(id);
    const plan = method.plan({ schema: uniformSchema(16), n: bigN, eps: 1, k: 6 });
    const start = performance.now();
    const { aggregator } = runMethod(method, plan, data, seededRng(4));
    const collect = performance.now() - start;
    const synopsis = method.estimate(plan, aggregator) as EmSynopsis;
    const times: number[] = [];
    const notes: string[] = [];
    for (const q of six) {
      const t0 = performance.now();
      const answer = synopsis.answer(q);
      times.push(performance.now() - t0);
      sink += answer.table.cells[0]!;
      const diag = answer.diagnostics;
      notes.push(`${diag.iterations}${diag.converged ? "" : "!"}${diag.stoppedAtPrior ? "P" : ""}`);
    }
    console.log(
      `${id.padEnd(6)} collect ${collect.toFixed(0)} ms; per query max ${Math.max(...times).toFixed(1)} ms, mean ${(
        times.reduce((s, t) => s + t, 0) / times.length
      ).toFixed(
        1,
      )} ms; iterations ${notes.join(" ")} (! = cap reached, P = stopped at prior; target <= 5000 ms)`,
    );
  }
}
console.log();

console.log("# 3. every method, d=8 k=3 eps=1 n=2^18, default path (counts where exact), plan to 56 answers");
{
  const bigN = 2 ** 18;
  const data = bernoulliStore(seededRng(5), bigN, d, 0.3);
  const runs = new Bench({ time: 0, iterations: 3, warmupIterations: 1 });
  for (const id of METHOD_IDS) {
    const method = createMethod(id);
    let path = "";
    runs.add(id, () => {
      const plan = method.plan({ schema, n: bigN, eps, k });
      const result = runMethod(method, plan, data, seededRng(seed++));
      path = result.path;
      const synopsis = method.estimate(plan, result.aggregator);
      for (const q of queries) sink += synopsis.query(q).cells[0]!;
    });
    runs.getTask(id)!.addEventListener("complete", () => {
      const latency = runs.getTask(id)!.result!.latency;
      console.log(`${id.padEnd(10)} ${path.padEnd(9)} best ${latency.min.toFixed(1).padStart(8)} ms`);
    });
  }
  await runs.run();
}
console.log(`(checksum ${sink.toFixed(3)})`);
