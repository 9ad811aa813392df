/**
 * CALM accuracy against its analytical error (calm-core `expectedQuerySse`).
 *
 * For queries a view covers, the measured SSE (mean over 50 random covered
 * queries x 20 repetitions) should agree with the analytical noise + sampling
 * error. Queries: random k'-subsets of random views, k' = min(k, l). Reported with
 * and without post-processing (consistency + non-negativity): the formula is for
 * the unbiased estimate; non-negativity trades a little bias for less variance, so
 * post-processed SSE falls below it where many cells are near zero (small eps).
 * Data: a synthetic Bayesian network (binary, d = 8) and Adult (d = 8, every
 * attribute capped at 3 categories), n = 2^16 sampled with replacement, k = 3.
 *
 * Run: `pnpm exec tsx --tsconfig packages/experiments/tsconfig.json packages/experiments/studies/calm-accuracy.ts [--reps 20] [--json]`
 */
import { existsSync } from "node:fs";
import { type CalmPlan, estimateCalm, expectedQuerySse, planCalm, simulateCalm } from "@calm-ldp/calm-core";
import { generateFromSpec, type LoadedDataset, sampleUsers } from "@calm-ldp/datasets";
import { loadDataset } from "@calm-ldp/datasets/node";
import { contingencyTable, sse } from "@calm-ldp/marginal-algebra";
import { deriveSeed, seededRng, uniformInt } from "@calm-ldp/random";

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const REPS = flag("reps", 20);
const QUERIES = flag("queries", 50);
const N = 2 ** 16;
const K = 3;
const SEED = 2026;
const EPS = [0.2, 0.6, 1.0, 1.4, 2.0];
const ADULT = new URL("../../../../shared/datasets/adult", import.meta.url).pathname;

function coveredQueries(plan: CalmPlan, seed: number): number[][] {
  const rng = seededRng(seed);
  const size = Math.min(K, plan.l);
  const out: number[][] = [];
  for (let i = 0; i < QUERIES; i++) {
    const view = plan.views[uniformInt(rng, plan.views.length)]!.attributes;
    const picked = [...view];
    for (let j = picked.length - 1; j > 0; j--) {
      const t = uniformInt(rng, j + 1);
      [picked[j], picked[t]] = [picked[t]!, picked[j]!];
    }
    out.push(picked.slice(0, size).sort((a, b) => a - b));
  }
  return out;
}

interface Row {
  data: string;
  eps: number;
  l: number;
  m: number;
  queryK: number;
  analytic: number;
  raw: number;
  post: number;
  rawRatio: number;
  postRatio: number;
}

function experiment(name: string, population: (rep: number) => LoadedDataset): Row[] {
  const rows: Row[] = [];
  for (const eps of EPS) {
    let analytic = 0;
    let raw = 0;
    let post = 0;
    let plan: CalmPlan | undefined;
    for (let rep = 0; rep < REPS; rep++) {
      const data = population(rep);
      plan = planCalm({ schema: data.schema, n: data.store.size, eps, k: K });
      const queries = coveredQueries(plan, deriveSeed(SEED, rep, 1));
      const aggregator = simulateCalm(plan, data.store, seededRng(deriveSeed(SEED, rep, 2)));
      const rawSynopsis = estimateCalm(plan, aggregator, { postProcess: false });
      const postSynopsis = estimateCalm(plan, aggregator);
      for (const query of queries) {
        const truth = contingencyTable(data.store, query);
        analytic += expectedQuerySse(plan, truth).total;
        raw += sse(rawSynopsis.query(query).cells, truth.cells);
        post += sse(postSynopsis.query(query).cells, truth.cells);
      }
    }
    const count = REPS * QUERIES;
    rows.push({
      data: name,
      eps,
      l: plan!.l,
      m: plan!.m,
      queryK: Math.min(K, plan!.l),
      analytic: analytic / count,
      raw: raw / count,
      post: post / count,
      rawRatio: raw / analytic,
      postRatio: post / analytic,
    });
  }
  return rows;
}

const rows: Row[] = [];
rows.push(
  ...experiment("synthetic:bn?strength=0.6&parents=2&seed=7 (d=8 binary)", (rep) =>
    generateFromSpec("synthetic:bn?strength=0.6&parents=2&seed=7", {
      n: N,
      d: 8,
      seed: deriveSeed(SEED, rep),
    }),
  ),
);
if (existsSync(ADULT)) {
  const adult = await loadDataset(`adult:${ADULT}`, { d: 8, c: 3 });
  rows.push(
    ...experiment("adult (d=8, c<=3, n=2^16 with replacement)", (rep) =>
      sampleUsers(adult, N, seededRng(deriveSeed(SEED, rep, 3))),
    ),
  );
} else {
  console.error(`adult: absent (${ADULT}), skipped`);
}

if (args.includes("--json")) {
  console.log(JSON.stringify({ reps: REPS, queries: QUERIES, n: N, k: K, rows }));
} else {
  console.log(
    `CALM measured vs analytical SSE of covered queries: n = ${N}, k = ${K}, ${QUERIES} queries x ${REPS} reps (seed ${SEED})\n`,
  );
  console.log(
    "| data | eps | l | m | query size | analytical SSE | measured (raw) | ratio | measured (post-processed) | ratio |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    console.log(
      `| ${r.data} | ${r.eps} | ${r.l} | ${r.m} | ${r.queryK} | ${r.analytic.toExponential(3)} | ${r.raw.toExponential(3)} | ${r.rawRatio.toFixed(3)} | ${r.post.toExponential(3)} | ${r.postRatio.toFixed(3)} |`,
    );
  }
}
