/**
 * What `?interval=` costs on the marginal endpoint's estimate (no HTTP, no DB):
 * `estimateMarginal` on support counts of n users (schema cardinalities
 * 2,4,3,2,4, eps 1, k 2) for a covered 2-way query and a maximum-entropy 5-way
 * query, plain and with a 95% interval; then calm-core's bootstrap (which the
 * collector never runs) for comparison. Median of R rounds each.
 *
 * Run (from packages/collector):
 *   npx tsx bench/interval-cost.ts [--n 20000] [--rounds 7]
 */
import { estimateCalm, planCalm } from "@calm-ldp/calm-core";
import { createSchema } from "@calm-ldp/marginal-algebra";
import { aggregatorFromCounts, estimateMarginal } from "../src/estimate-marginal.js";
import { simulatedCounts } from "../src/test-support.js";

function argument(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}
const n = Number(argument("n", "20000"));
const rounds = Number(argument("rounds", "7"));
const schema = createSchema([2, 4, 3, 2, 4].map((cardinality, i) => ({ name: `x${i}`, cardinality })));
const plan = planCalm({ schema, n, eps: 1, k: 2 });
const { counts } = simulatedCounts(plan, n, 5);
const median = (f: () => unknown) => {
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    f();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
};
console.log(`n=${n}, d=5, eps=1, k=2, l=${plan.l}, m=${plan.m}; median of ${rounds} rounds`);
for (const query of [plan.views[0]!.attributes, [0, 1, 2, 3, 4]]) {
  const plain = median(() => estimateMarginal(plan, counts, query));
  let kind = "";
  const interval = median(() => {
    kind = estimateMarginal(plan, counts, query, {}, "calm", 0.95).interval!.intervalMethod;
  });
  console.log(
    `query [${query.join(",")}]: plain ${plain.toFixed(1)} ms, with interval (${kind}) ${interval.toFixed(1)} ms, ratio ${(interval / plain).toFixed(2)}`,
  );
}
const synopsis = estimateCalm(plan, aggregatorFromCounts(plan, counts));
const covered = plan.views[0]!.attributes;
const t0 = performance.now();
synopsis.query(covered, { interval: 0.95, intervalMethod: "bootstrap", replicates: 200 });
console.log(
  `calm-core bootstrap, B = 200 (never run by the collector): ${(performance.now() - t0).toFixed(0)} ms once per release`,
);
