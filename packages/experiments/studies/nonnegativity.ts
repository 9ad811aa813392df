/**
 * Which non-negativity method should be the default? (../../../docs/algorithms.md#non-negativity)
 *
 * Runs CALM end to end (calm-core's plan, count-level simulation of the adaptive
 * oracle, estimate) on Adult (every attribute reduced to <= 3 categories, 45,222
 * complete rows of adult.data + adult.test, n users sampled with replacement) and
 * on synthetic binary data (a random Bayesian network), and post-processes the
 * SAME raw views with each method: none (views left as estimated), ripple,
 * norm-sub, norm-cut (consistency <-> non-negativity alternating, cap 30 rounds).
 * Reports, per setting, mean (sd) over repetitions of
 *   - view SSE: mean over views of SSE(post-processed view, true view),
 *   - query SSE: mean over 50 random k-way queries of SSE(answer, true marginal),
 * all in fractions, and which method had the lowest query SSE most often.
 *
 * Run: `npx tsx --tsconfig packages/experiments/tsconfig.json packages/experiments/studies/nonnegativity.ts [--reps 10] [--json]`
 */
import { readFileSync } from "node:fs";
import { estimateCalm, planCalm, simulateCalm } from "@calm-ldp/calm-core";
import { generateBayesNet, type LoadedDataset, parseAdult, sampleUsers } from "@calm-ldp/datasets";
import {
  contingencyTable,
  type MarginalTable,
  type NonNegativityMethod,
  randomQueries,
  sse,
} from "@calm-ldp/marginal-algebra";
import { deriveSeed, seededRng } from "@calm-ldp/random";

type Method = "none" | NonNegativityMethod;
const METHODS: readonly Method[] = ["none", "ripple", "norm-sub", "norm-cut"];

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? Number(args[at + 1]) : fallback;
};
const REPS = flag("reps", 20);
const N = flag("n", 2 ** 16);
const QUERIES = 50;
const SEED = flag("seed", 20240601);
const EPSILONS = [0.2, 0.6, 1.0, 1.4, 2.0];
const json = args.includes("--json");
const log = (line: string) => process.stderr.write(`${line}\n`);

const ADULT_DIR = "/work/shared/datasets/adult";
const adultTexts = ["adult.data", "adult.test"].map((name) => ({
  name,
  text: readFileSync(`${ADULT_DIR}/${name}`, "utf8"),
}));
const adult = parseAdult(adultTexts, { c: 3 });
const adult8 = parseAdult(adultTexts, { c: 3, d: 8 });

interface Setting {
  dataset: string;
  population: () => LoadedDataset;
  k: number;
  /** Users per repetition (default N). */
  n?: number;
}

const bayesNet = (d: number) => () =>
  generateBayesNet({ n: N, d, maxParents: 2, strength: 0.5 }, seededRng(SEED, 99 + d));
const settings: Setting[] = [
  { dataset: "Adult d=15 c<=3", population: () => adult, k: 3 },
  { dataset: "Adult first 8 attrs, c<=3", population: () => adult8, k: 3 },
  { dataset: "BN d=16 binary", population: bayesNet(16), k: 3 },
  { dataset: "BN d=8 binary", population: bayesNet(8), k: 3 },
  { dataset: "BN d=16 binary", population: bayesNet(16), k: 6 },
  // n = 2^18 gives larger views (l = 3 at eps 1.4, l = 4 at eps 2).
  { dataset: "BN d=16 binary, n=2^18", population: bayesNet(16), k: 3, n: 2 ** 18 },
];

interface Row {
  dataset: string;
  k: number;
  eps: number;
  l: number;
  m: number;
  method: Method;
  viewSse: { mean: number; sd: number };
  querySse: { mean: number; sd: number };
  meanRounds: number;
  /** Mean over repetitions of what the loop left: the largest change one more consistency step would make. */
  meanInconsistencyLeft: number;
  convergedRuns: number;
  /** Repetitions in which this method had the lowest query SSE (ties count for every tied method). */
  wins: number;
}

/** Equal up to rounding (methods that leave the views untouched give identical answers). */
const tied = (a: number, b: number) => Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b));

function meanSd(values: readonly number[]): { mean: number; sd: number } {
  const mean = values.reduce((s, x) => s + x, 0) / values.length;
  const variance = values.reduce((s, x) => s + (x - mean) ** 2, 0) / Math.max(1, values.length - 1);
  return { mean, sd: Math.sqrt(variance) };
}

const rows: Row[] = [];
const started = Date.now();
settings.forEach((setting, s) => {
  const population = setting.population();
  for (const eps of EPSILONS) {
    const viewSse = new Map<Method, number[]>(METHODS.map((m) => [m, []]));
    const querySse = new Map<Method, number[]>(METHODS.map((m) => [m, []]));
    const rounds = new Map<Method, number[]>(METHODS.map((m) => [m, []]));
    const left = new Map<Method, number[]>(METHODS.map((m) => [m, []]));
    const converged = new Map<Method, number>(METHODS.map((m) => [m, 0]));
    const wins = new Map<Method, number>(METHODS.map((m) => [m, 0]));
    let shape = { l: 0, m: 0 };
    for (let rep = 0; rep < REPS; rep++) {
      const rng = seededRng(deriveSeed(SEED, s, Math.round(eps * 10), rep));
      const n = setting.n ?? N;
      const users = sampleUsers(population, n, rng, { replacement: "always" });
      const schema = users.schema;
      const d = schema.attributes.length;
      const plan = planCalm({ schema, n, eps, k: setting.k });
      shape = { l: plan.views[0]!.attributes.length, m: plan.views.length };
      const aggregator = simulateCalm(plan, users.store, rng);
      const trueViews = plan.views.map((view) => contingencyTable(users.store, view.attributes));
      const queries = randomQueries(rng, d, setting.k, QUERIES);
      const truths = queries.map((q) => contingencyTable(users.store, q));
      const repQuery = new Map<Method, number>();
      for (const method of METHODS) {
        const synopsis = estimateCalm(
          plan,
          aggregator,
          method === "none" ? { postProcess: false } : { postProcessOptions: { method } },
        );
        const views: readonly MarginalTable[] = synopsis.views;
        viewSse
          .get(method)!
          .push(views.reduce((sum, view, i) => sum + sse(view, trueViews[i]!), 0) / views.length);
        const q =
          queries.reduce((sum, query, i) => sum + sse(synopsis.query(query), truths[i]!), 0) / QUERIES;
        querySse.get(method)!.push(q);
        repQuery.set(method, q);
        rounds.get(method)!.push(synopsis.postProcess?.rounds ?? 0);
        left.get(method)!.push(synopsis.postProcess?.maxInconsistency ?? 0);
        if (synopsis.postProcess?.converged) converged.set(method, converged.get(method)! + 1);
      }
      const best = Math.min(...METHODS.map((m) => repQuery.get(m)!));
      for (const m of METHODS) if (tied(repQuery.get(m)!, best)) wins.set(m, wins.get(m)! + 1);
    }
    for (const method of METHODS) {
      const r = rounds.get(method)!;
      rows.push({
        dataset: setting.dataset,
        k: setting.k,
        eps,
        ...shape,
        method,
        viewSse: meanSd(viewSse.get(method)!),
        querySse: meanSd(querySse.get(method)!),
        meanRounds: r.reduce((a, b) => a + b, 0) / r.length,
        meanInconsistencyLeft: left.get(method)!.reduce((a, b) => a + b, 0) / REPS,
        convergedRuns: converged.get(method)!,
        wins: wins.get(method)!,
      });
    }
    log(
      `${setting.dataset} k=${setting.k} eps=${eps}: done (${((Date.now() - started) / 1000).toFixed(0)} s)`,
    );
  }
});

// Overall: mean rank of each method's mean query SSE over settings, and total wins.
const summary = METHODS.map((method) => {
  let rankSum = 0;
  let groups = 0;
  let winsTotal = 0;
  let ratioLog = 0;
  for (let i = 0; i < rows.length; i += METHODS.length) {
    const group = rows.slice(i, i + METHODS.length);
    const sorted = [...group].sort((a, b) => a.querySse.mean - b.querySse.mean);
    const own = group.find((r) => r.method === method)!;
    // Rank with ties sharing the mean of their positions.
    const below = group.filter(
      (r) => r.querySse.mean < own.querySse.mean && !tied(r.querySse.mean, own.querySse.mean),
    ).length;
    const same = group.filter((r) => tied(r.querySse.mean, own.querySse.mean)).length;
    rankSum += below + (same + 1) / 2;
    winsTotal += own.wins;
    ratioLog += Math.log(own.querySse.mean / sorted[0]!.querySse.mean);
    groups++;
  }
  return {
    method,
    meanRank: rankSum / groups,
    wins: winsTotal,
    geometricMeanRatioToBest: Math.exp(ratioLog / groups),
  };
});

const meta = {
  n: `${N} (unless the setting says otherwise)`,
  reps: REPS,
  queries: QUERIES,
  seed: SEED,
  epsilons: EPSILONS,
  roundCap: 30,
  adult: `${adult.info.source}; ${adult.info.rows} rows; ${adult.info.preprocessing.join("; ")}`,
  sampling: "n users drawn with replacement from the population each repetition",
  seconds: (Date.now() - started) / 1000,
};

if (json) {
  console.log(JSON.stringify({ meta, rows, summary }));
} else {
  const e = (x: number) => x.toExponential(2);
  console.log(
    `n = ${N} unless the setting says otherwise, ${REPS} repetitions, ${QUERIES} random k-way queries each, seed ${SEED}, round cap 30`,
  );
  console.log("");
  console.log(
    "| data | k | eps | l, m | method | view SSE mean (sd) | query SSE mean (sd) | rounds (converged runs) | inconsistency left | best |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    console.log(
      `| ${r.dataset} | ${r.k} | ${r.eps} | ${r.l}, ${r.m} | ${r.method} | ${e(r.viewSse.mean)} (${e(r.viewSse.sd)}) | ${e(r.querySse.mean)} (${e(r.querySse.sd)}) | ${r.meanRounds.toFixed(1)} (${r.convergedRuns}) | ${r.method === "none" ? "-" : e(r.meanInconsistencyLeft)} | ${r.wins}/${REPS} |`,
    );
  }
  console.log("");
  console.log(
    `| method | mean rank of mean query SSE (${rows.length / METHODS.length} settings, ties share) | runs with the lowest query SSE (of ${(rows.length / METHODS.length) * REPS}; ties count for each) | geometric mean of mean SSE / best |`,
  );
  console.log("|---|---|---|---|");
  for (const s of summary) {
    console.log(
      `| ${s.method} | ${s.meanRank.toFixed(2)} | ${s.wins} | ${s.geometricMeanRatioToBest.toFixed(3)} |`,
    );
  }
  console.log("");
  console.log(`(${meta.adult}; ${meta.sampling}; ${meta.seconds.toFixed(0)} s)`);
}
