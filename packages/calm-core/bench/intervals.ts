/**
 * Cost of CALM's confidence intervals (issue 18) at n = 2^20 users, d = 32 binary
 * attributes, k = 3, eps = 1: the release (consistency + non-negativity), 50
 * point answers, the same 50 queries with 95% analytic intervals, and the
 * parametric bootstrap (B replicates, each a count-level re-simulation and
 * re-estimation of the release). The 50 queries are random 3-subsets of random
 * views (covered: the analytic path). Target: release + 50 interval queries
 * <= 2 x (release + 50 point queries).
 *
 * Run (from packages/calm-core):
 *   flock /work/coord/bench.lock nice -n 10 npx tsx bench/intervals.ts [--n 1048576] [--d 32] [--k 3] [--eps 1] [--B 20]
 */
import { seededRng, uniformInt } from "@calm-ldp/random";
import { estimateCalm, planCalm, simulateCalm } from "../src/index.js";
import { markovStore } from "../src/test-support.js";
import { argument } from "./arguments.js";

const n = argument("n", 2 ** 20);
const d = argument("d", 32);
const k = argument("k", 3);
const eps = argument("eps", 1);
const B = argument("B", 20);
const count = 50;
const ms = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

const data = markovStore(seededRng(1), n, new Array(d).fill(2), 0.6);
const plan = planCalm({ schema: data.schema, n, eps, k });
const aggregator = simulateCalm(plan, data, seededRng(2));
const pick = seededRng(3);
const wide = plan.views.map((v) => v.attributes).filter((a) => a.length >= k);
if (wide.length === 0)
  throw new Error(`no view has k = ${k} attributes (plan l = ${plan.l}): raise --n or lower --k`);
const queries: number[][] = [];
while (queries.length < count) {
  const view = wide[uniformInt(pick, wide.length)]!;
  const chosen = new Set<number>();
  while (chosen.size < k) chosen.add(view[uniformInt(pick, view.length)]!);
  queries.push([...chosen].sort((a, b) => a - b));
}
console.log(
  `CALM intervals: n = ${n}, d = ${d}, k = ${k}, eps = ${eps}; plan l = ${plan.l}, m = ${plan.views.length}, ${plan.views.reduce((s, v) => s + v.cells, 0)} view cells; ${count} covered ${k}-way queries`,
);

// Warm up the code paths once (JIT), on a separate release.
{
  const warm = estimateCalm(plan, aggregator);
  for (const q of queries.slice(0, 5)) {
    warm.query(q);
    warm.query(q, { interval: 0.95 });
  }
}

const rounds = 3;
// Milliseconds summed over the rounds, and the summed width of cell 0's intervals.
const sum = { release: 0, point: 0, interval: 0, firstQuery: 0, width: 0 };
for (let r = 0; r < rounds; r++) {
  let t = process.hrtime.bigint();
  const synopsis = estimateCalm(plan, aggregator);
  sum.release += ms(t);
  t = process.hrtime.bigint();
  for (const q of queries) synopsis.query(q);
  sum.point += ms(t);
  t = process.hrtime.bigint();
  for (const [i, q] of queries.entries()) {
    const answer = synopsis.query(q, { interval: 0.95 });
    if (i === 0) sum.firstQuery += ms(t);
    if (answer.intervalMethod !== "analytic") throw new Error("expected the analytic path");
    sum.width += answer.upper[0]! - answer.lower[0]!;
  }
  sum.interval += ms(t);
}
const release = sum.release / rounds;
const firstQuery = sum.firstQuery / rounds;
const point = sum.point / rounds;
const interval = sum.interval / rounds;
console.log(`release (estimateCalm: consistency + non-negativity): ${release.toFixed(1)} ms`);
console.log(`50 point answers:                                      ${point.toFixed(1)} ms`);
console.log(
  `50 answers with 95% analytic intervals:                ${interval.toFixed(1)} ms (${(interval / count).toFixed(2)} ms/query; mean width of cell 0 ${(sum.width / (rounds * count)).toFixed(4)})`,
);
console.log(
  `  of which the first query (builds the release's per-view index: covariances, 1-way projections): ${firstQuery.toFixed(1)} ms; the other 49: ${(interval - firstQuery).toFixed(1)} ms`,
);
console.log(
  `ratio (release + intervals) / (release + points) = ${((release + interval) / (release + point)).toFixed(2)} (target <= 2); intervals / points alone = ${(interval / point).toFixed(1)}`,
);

const synopsis = estimateCalm(plan, aggregator);
let t = process.hrtime.bigint();
const boot = synopsis.query(queries[0]!, { interval: 0.95, intervalMethod: "bootstrap", replicates: B });
const first = ms(t);
t = process.hrtime.bigint();
for (const q of queries.slice(1))
  synopsis.query(q, { interval: 0.95, intervalMethod: "bootstrap", replicates: B });
const rest = ms(t);
console.log(
  `bootstrap, B = ${B}: replicates drawn and re-estimated once per synopsis ${first.toFixed(0)} ms (${(first / B).toFixed(0)} ms/replicate: count-level re-simulation + estimateCalm), then the other 49 queries ${rest.toFixed(0)} ms; SE ratio bootstrap/analytic on query 0 cell 0: ${(boot.standardError[0]! / synopsis.query(queries[0]!, { interval: 0.95 }).standardError[0]!).toFixed(2)}`,
);
console.log(
  `bootstrap at the default B = 200 would take about ${(((first / B) * 200) / 1000).toFixed(1)} s per release`,
);

// Maximum-entropy answers: 50 random k-subsets that no view covers, point answers (IPF fits)
// against the same queries with calm-core's bound-based interval (analytic intervals of the
// covered parts + Fréchet bounds).
const uncovered: number[][] = [];
while (uncovered.length < count) {
  const chosen = new Set<number>();
  while (chosen.size < k) chosen.add(uniformInt(pick, d));
  const q = [...chosen].sort((a, b) => a - b);
  if (!plan.views.some((v) => q.every((a) => v.attributes.includes(a)))) uncovered.push(q);
}
{
  const fresh = estimateCalm(plan, aggregator);
  let t0 = process.hrtime.bigint();
  for (const q of uncovered) fresh.query(q);
  const points = ms(t0);
  t0 = process.hrtime.bigint();
  let width = 0;
  for (const q of uncovered) {
    const answer = fresh.query(q, { interval: 0.95 });
    if (answer.intervalMethod !== "bounds") throw new Error("expected the bound-based path");
    width += answer.upper[0]! - answer.lower[0]!;
  }
  const bounded = ms(t0);
  console.log(
    `50 uncovered ${k}-way queries: maximum-entropy point answers ${points.toFixed(1)} ms; with 95% bound-based intervals ${bounded.toFixed(1)} ms (${(bounded / count).toFixed(2)} ms/query, ratio ${(bounded / points).toFixed(2)}; mean width of cell 0 ${(width / count).toFixed(4)})`,
  );
}
