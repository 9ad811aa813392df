/**
 * The accuracy experiments (measured SSE against each closed form). Run: `npx tsx bench/accuracy.ts [section...]`
 * (in packages/baselines; sections: inpht, vary-d, analytic, inpem; default all).
 * Data: i.i.d. Bernoulli(0.3) bits (Cormode et al.'s synthetic data), generated
 * from a seeded xoshiro128** stream; the "chain" data of the InpEM table has
 * correlated bits (bit i equals bit i - 1 with probability 0.8). Every figure
 * states n, d, k, eps, the seed, queries and repetitions. Count-level simulation
 * unless the section says per-user (the two paths have the same distribution,
 * tested in src/paths.test.ts).
 */
import {
  allQueries,
  contingencyTable,
  createRecordStore,
  type MarginalTable,
  meanAnswerErrors,
  type RecordStore,
  uniformSchema,
} from "@calm-ldp/marginal-algebra";
import { createBernoulli, deriveSeed, type Rng, seededRng } from "@calm-ldp/random";
import type { EmSynopsis, GroupPlan, HadamardPlan, MethodOptions, RunPath } from "../src/api.js";
import {
  createMethod,
  expectedInverseGroupSize,
  expectedSse,
  runMethod,
  supportSumVariance,
} from "../src/index.js";
import { bernoulliStore } from "./data.js";

const SEED = 2018;
/** Seed streams: data sets and method runs never share a stream (a shared stream correlates the noise with the data). */
const DATA = 1;
const RUNS = 2;
const sections = process.argv.slice(2);
const wanted = (name: string) => sections.length === 0 || sections.includes(name);

interface Measured {
  sse: number[];
  tvd: number[];
  expected: number;
}

/** Mean SSE and TVD over all k-way queries, per repetition; and the mean closed-form expected SSE. */
function measure(
  id: string,
  store: RecordStore,
  k: number,
  eps: number,
  reps: number,
  path: RunPath = "auto",
  seed = SEED,
  options: MethodOptions = {},
): Measured {
  const d = store.columns.length;
  const method = createMethod(id, options);
  const plan = method.plan({ schema: store.schema, n: store.size, eps, k });
  const queries = allQueries(d, k);
  const truths: MarginalTable[] = queries.map((q) => contingencyTable(store, q));
  const sses: number[] = [];
  const tvds: number[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const rng = seededRng(deriveSeed(seed, RUNS, rep));
    const synopsis = method.estimate(plan, runMethod(method, plan, store, rng, { path }).aggregator);
    const errors = meanAnswerErrors(synopsis, queries, truths);
    sses.push(errors.sse);
    tvds.push(errors.tvd);
  }
  const expected = method.expectedSse
    ? queries.reduce((sum, q, i) => sum + expectedSse(plan, q, truths[i]), 0) / queries.length
    : Number.NaN;
  return { sse: sses, tvd: tvds, expected };
}

function stats(values: readonly number[]): { mean: number; sd: number; min: number; max: number } {
  const mean = values.reduce((s, x) => s + x, 0) / values.length;
  const sd = Math.sqrt(values.reduce((s, x) => s + (x - mean) ** 2, 0) / Math.max(1, values.length - 1));
  return { mean, sd, min: Math.min(...values), max: Math.max(...values) };
}

const e3 = (x: number) => x.toExponential(2);
const f3 = (x: number) => x.toFixed(3);

if (wanted("inpht")) {
  console.log("## InpHT, d = 8, k = 3, eps = 1, n = 2^16, Bernoulli(0.3), all 56 marginals, 10 repetitions");
  const store = bernoulliStore(seededRng(deriveSeed(SEED, DATA, 16, 8)), 2 ** 16, 8, 0.3);
  for (const path of ["per-user", "counts"] as const) {
    const m = measure("inpht", store, 3, 1, 10, path);
    const s = stats(m.sse);
    console.log(
      `${path.padEnd(8)} mean SSE ${e3(s.mean)} (sd over reps ${e3(s.sd)}, range ${e3(s.min)}..${e3(s.max)}); expected ${e3(m.expected)}; target 3e-3..7e-3`,
    );
  }
  console.log();
}

/**
 * Closed-form mean TVD over all k-way queries, normal approximation: a cell with
 * variance V has E|error| = sqrt(2 V / pi). MargPS: per cell
 * `E[1/N] (supportSumVariance("exclusive", p, q, 1, f) / (p - q)^2 + f (1 - f)(1 - 1/G))`;
 * InpHT: every cell has variance `2^{-2k} sum_alpha Var(theta_alpha)`, i.e. SSE / 2^k.
 */
function expectedTvd(id: "margps" | "inpht", store: RecordStore, k: number, eps: number): number {
  const d = store.columns.length;
  const plan = createMethod(id).plan({ schema: store.schema, n: store.size, eps, k });
  const queries = allQueries(d, k);
  let total = 0;
  for (const q of queries) {
    const truth = contingencyTable(store, q);
    if (id === "inpht") {
      const perCell = expectedSse(plan as HadamardPlan, q, truth) / truth.cells.length;
      total += 0.5 * truth.cells.length * Math.sqrt((2 * perCell) / Math.PI);
      continue;
    }
    const groups = (plan as GroupPlan).groups;
    const e = Math.exp(eps);
    const cells = truth.cells.length;
    const p = e / (e + cells - 1);
    const qq = 1 / (e + cells - 1);
    const inverse = expectedInverseGroupSize(store.size, groups);
    for (const f of truth.cells) {
      const variance =
        inverse *
        (supportSumVariance("exclusive", p, qq, 1, f) / (p - qq) ** 2 + f * (1 - f) * (1 - 1 / groups));
      total += 0.5 * Math.sqrt((2 * variance) / Math.PI);
    }
  }
  return total / queries.length;
}

if (wanted("vary-d")) {
  const eps = Math.log(3);
  console.log(
    "## vary d: e^eps = 3, k = 3, N = 2^18, Bernoulli(0.3), mean TVD over all 3-way marginals, 10 repetitions",
  );
  console.log(
    "| d | InpHT TVD (vs paper) | paper | InpHT closed form | MargPS TVD | MargPS closed form | MargPS + norm-sub | paper (at or below) |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  const paper: Record<number, [number, number]> = {
    6: [0.025, 0.04],
    8: [0.035, 0.07],
    10: [0.047, 0.105],
    12: [0.067, 0.14],
    16: [0.1, 0.22],
  };
  for (const d of [6, 8, 10, 12, 16]) {
    const store = bernoulliStore(seededRng(deriveSeed(SEED, DATA, 18, d)), 2 ** 18, d, 0.3);
    const ht = stats(measure("inpht", store, 3, eps, 10).tvd);
    const ps = stats(measure("margps", store, 3, eps, 10).tvd);
    const psClipped = stats(measure("margps", store, 3, eps, 10, "auto", SEED, { answers: "norm-sub" }).tvd);
    const [htPaper, psPaper] = paper[d]!;
    console.log(
      `| ${d} | ${f3(ht.mean)} ± ${f3(ht.sd)} (${ht.mean >= htPaper ? "+" : ""}${((ht.mean / htPaper - 1) * 100).toFixed(0)}%) | ${htPaper} | ${f3(expectedTvd("inpht", store, 3, eps))} | ${f3(ps.mean)} ± ${f3(ps.sd)} | ${f3(expectedTvd("margps", store, 3, eps))} | ${f3(psClipped.mean)} | ${psPaper} |`,
    );
  }
  console.log("(± is the standard deviation over the 10 repetitions)\n");
}

if (wanted("analytic")) {
  console.log(
    "## closed form vs measured: d = 8, k = 3 binary, eps = 1, n = 2^18, Bernoulli(0.3), 56 marginals x 50 reps",
  );
  const n = 2 ** 18;
  const store = bernoulliStore(seededRng(deriveSeed(SEED, DATA, 18, 8)), n, 8, 0.3);
  const e = Math.E;
  const var0 = (4 * e) / ((e - 1) ** 2 * n);
  console.log(
    "| method | measured SSE | expected SSE | measured/expected | expected / OUE Var0 | f-free / OUE Var0 |",
  );
  console.log("|---|---|---|---|---|---|");
  for (const id of ["ft", "fc", "am"]) {
    const m = measure(id, store, 3, 1, 50);
    const s = stats(m.sse);
    const plan = createMethod(id).plan({ schema: store.schema, n, eps: 1, k: 3 });
    const free = expectedSse(plan, [0, 1, 2]);
    console.log(
      `| ${id} | ${e3(s.mean)} ± ${e3(s.sd / Math.sqrt(50))} (sd ${((s.sd / s.mean) * 100).toFixed(0)}%) | ${e3(m.expected)} | ${(s.mean / m.expected).toFixed(3)} | ${(m.expected / var0).toFixed(1)} | ${(free / var0).toFixed(1)} |`,
    );
  }
  console.log(
    "(± is the standard error of the mean over the 50 repetitions; sd the spread of one repetition)\n",
  );
}

/** Bits where bit i copies bit i - 1 with probability 0.8, else is a fresh Bernoulli(0.3). */
function chainStore(rng: Rng, n: number, d: number): RecordStore {
  const fresh = createBernoulli(0.3);
  const copy = createBernoulli(0.8);
  const columns = Array.from({ length: d }, () => new Uint8Array(n));
  for (let r = 0; r < n; r++) {
    for (let a = 0; a < d; a++) {
      columns[a]![r] = a > 0 && copy.sample(rng) ? columns[a - 1]![r]! : fresh.sample(rng) ? 1 : 0;
    }
  }
  return createRecordStore(uniformSchema(d), { columns });
}

if (wanted("inpem")) {
  console.log(
    "## InpEM: marginals stopped at the prior (Cormode et al. Table 3 settings; Omega = 1e-5, uniform start)",
  );
  console.log("| N | d | k | eps | Table 3 (taxi) | Bernoulli(0.3) | chain |");
  console.log("|---|---|---|---|---|---|---|");
  const rows: [number, number, number, number, string][] = [
    [16, 8, 1, 0.2, "3/8"],
    [18, 8, 2, 0.1, "15/28"],
    [16, 8, 2, 0.2, "3/28"],
    [16, 12, 2, 0.2, "19/66"],
    [18, 16, 2, 0.1, "120/120"],
    [18, 16, 2, 0.2, "72/120"],
    [19, 24, 2, 0.2, "276/276"],
  ];
  const method = createMethod("inpem");
  for (const [logN, d, k, eps, paper] of rows) {
    const cells: string[] = [];
    for (const make of [
      (rng: Rng) => bernoulliStore(rng, 2 ** logN, d, 0.3),
      (rng: Rng) => chainStore(rng, 2 ** logN, d),
    ]) {
      const store = make(seededRng(deriveSeed(SEED, DATA, logN, d)));
      const plan = method.plan({ schema: store.schema, n: store.size, eps, k });
      const synopsis = method.estimate(
        plan,
        runMethod(method, plan, store, seededRng(deriveSeed(SEED, RUNS, logN, d, k, eps * 10))).aggregator,
      ) as EmSynopsis;
      const queries = allQueries(d, k);
      let failed = 0;
      let capped = 0;
      for (const q of queries) {
        const { diagnostics } = synopsis.answer(q);
        if (diagnostics.stoppedAtPrior) failed++;
        if (!diagnostics.converged) capped++;
      }
      cells.push(`${failed}/${queries.length}${capped > 0 ? ` (${capped} hit the cap)` : ""}`);
    }
    console.log(`| 2^${logN} | ${d} | ${k} | ${eps} | ${paper} | ${cells.join(" | ")} |`);
  }
  console.log();
}
