/**
 * Sampled check of `bench/oue-estimator-bound.py`'s figures for OUE pair views:
 * calm-core's release against the pattern-reading estimator capped at 2 x floor
 * (`src/attacks/pattern-scores.fixture.json`, `pattern-scores.ts`), on the real
 * sampler. Not a speed benchmark:
 * `flock /tmp/calm-bench.lock npx tsx bench/pattern-estimator.ts [--seeds 20] [--n 32768] [--no-attack]`
 * (`--no-attack`: only the squared errors, for many cheap seeds).
 *
 * Per seed and eps: n honest users of the issue's probe (d = 8 binary attributes,
 * P(1) = 0.3, CALM's plan for n = 2^17 with OUE views: 28 pair views) through
 * @calm-ldp/client's `createReport` and the collector's `decodeReport`, counted
 * both in a `CalmAggregator` and as per-view pattern histograms; then F =
 * round(beta n / (1 - beta)) fakes in uniformly drawn views: `mga` and
 * `mga-honest-count` (`craftReport`), `adaptive-calm` (in view v the pattern y
 * maximizing w_v . (y - q)/(p - q), w calm-core's consistency weights of the
 * target cell: the maximal-gain report against calm-core's release) and
 * `adaptive-pattern` (argmax of the pattern estimator's scores). Gain of the
 * target cell (x0, x1) = (1, 1) with fakes minus without (same honest reports),
 * over the floor beta (e^eps/(e^eps - 1) - f_T): calm-core's full release
 * (`estimateCalm`, query (0, 1)) and the pattern estimate. No attack: squared
 * error against the honest sample's f_T of the pattern estimate, of calm-core's
 * release and of its consistency step alone (linear, what the QP compares with;
 * the release's non-negativity also acts when n/m is small), and ratios of
 * means with delta-method standard errors (paired over seeds). Prints mean +- 1.96 standard
 * errors over seeds. (The collector's per-report unary check drops nothing in
 * 4-cell views at 1%, so it is left out here.)
 */
import { CalmAggregator, type CalmPlan, type CalmReport, estimateCalm, planCalm } from "@calm-ldp/calm-core";
import { createReport } from "@calm-ldp/client";
import { createSchema, makeConsistent } from "@calm-ldp/marginal-algebra";
import { type Rng, seededRng, uniformInt } from "@calm-ldp/random";
import { craftReport, targetView, unaryPq } from "../src/attacks/craft.js";
import fixture from "../src/attacks/pattern-scores.fixture.json";
import { patternEstimate, reportPattern, worstPattern } from "../src/attacks/pattern-scores.js";
import { decodeReport } from "../src/decode-report.js";
import { consistencyWeights } from "./consistency-map.js";

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const seeds = Number(arg("seeds", "20"));
const n = Number(arg("n", String(2 ** 15)));
const schema = createSchema(Array.from({ length: 8 }, (_, i) => ({ name: `a${i}`, cardinality: 2 })));
const target = { attributes: [0, 1], values: [1, 1] };
const attacks = ["mga", "mga-honest-count", "adaptive-calm", "adaptive-pattern"] as const;
type Attack = (typeof attacks)[number];
const betas = process.argv.includes("--no-attack") ? [] : [0.01, 0.05];

/** A unary report of view v with the cells of pattern y (bit 3 - c is cell c). */
function patternReport(v: number, y: number): CalmReport {
  let word = 0;
  for (let c = 0; c < 4; c++) if ((y >>> (3 - c)) & 1) word |= 1 << c;
  return { view: v, report: Uint32Array.of(word) } as CalmReport;
}

/** Per view, the pattern maximizing w_v . (y - q)/(p - q): the maximal-gain report against calm-core's release. */
function adaptiveCalm(plan: CalmPlan, w: number[][]): number[] {
  const { p, q } = unaryPq("oue", plan.eps);
  return w.map((wv) => {
    let best = 0;
    let bestScore = Number.NEGATIVE_INFINITY;
    for (let y = 0; y < 16; y++) {
      const score = wv.reduce((s, wc, c) => s + (wc * (((y >>> (3 - c)) & 1) - q)) / (p - q), 0);
      if (score > bestScore) [best, bestScore] = [y, score];
    }
    return best;
  });
}

/** One fake's report of `attack` in a uniformly drawn view. */
function fake(
  plan: CalmPlan,
  attack: Attack,
  scores: readonly (readonly number[])[],
  calmBest: number[],
  rng: Rng,
) {
  const v = uniformInt(rng, plan.m);
  if (attack === "adaptive-calm") return patternReport(v, calmBest[v]!);
  if (attack === "adaptive-pattern") return patternReport(v, worstPattern(scores, v));
  return decodeReport(plan, craftReport(attack, plan, target, v, rng));
}

/** The estimates of the target cell: calm-core's release, the pattern estimate, calm-core's consistency only (linear). */
function estimates(
  plan: CalmPlan,
  agg: CalmAggregator,
  hist: Float64Array[],
  scores: readonly (readonly number[])[],
) {
  const linear = makeConsistent(estimateCalm(plan, agg, { postProcess: false }).rawViews)[0]!.cells[3]!;
  return [estimateCalm(plan, agg).query([0, 1]).cells[3]!, patternEstimate(scores, hist), linear];
}

const meanCi = (xs: number[]) => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1));
  return { mean, half: (1.96 * sd) / Math.sqrt(xs.length), sd };
};
const show = (xs: number[]) => {
  const { mean, half } = meanCi(xs);
  return `${mean.toFixed(2)} +- ${half.toFixed(2)}`;
};

for (const eps of [1, 0.5] as const) {
  const plan = planCalm({ schema, n: 2 ** 17, eps, k: 2 }, { oracle: "oue" });
  if (targetView(plan, target) !== 0 || plan.m !== 28) throw new Error("unexpected plan");
  const scores = fixture.eps[eps === 1 ? "1.0" : "0.5"].scores;
  const calmBest = adaptiveCalm(plan, consistencyWeights(plan, 0));
  const e = Math.exp(eps);
  const ratios = new Map<string, number[]>();
  const sq: [number[], number[], number[]] = [[], [], []];
  for (let s = 1; s <= seeds; s++) {
    const rng = seededRng(7_000 + s, Math.round(eps * 10));
    const honest = new CalmAggregator(plan);
    const hist = plan.views.map(() => new Float64Array(16));
    let inT = 0;
    for (let u = 0; u < n; u++) {
      const row = Array.from({ length: 8 }, () => (rng.nextUint32() / 2 ** 32 < 0.3 ? 1 : 0));
      if (row[0] === 1 && row[1] === 1) inT++;
      const report = decodeReport(plan, createReport(plan, row, { rng }));
      honest.add(report);
      hist[report.view]![reportPattern(report.report as Uint32Array, 4)]! += 1;
    }
    const before = estimates(plan, honest, hist, scores);
    for (let i = 0; i < 3; i++) sq[i]!.push((before[i]! - inT / n) ** 2);
    for (const beta of betas) {
      const floor = beta * (e / (e - 1) - inT / n);
      for (const attack of attacks) {
        const agg = new CalmAggregator(plan);
        plan.views.forEach((_, v) => {
          agg.views[v]!.merge(honest.views[v]!);
        });
        const h = hist.map((x) => Float64Array.from(x));
        for (let f = 0; f < Math.round((beta * n) / (1 - beta)); f++) {
          const report = fake(plan, attack, scores, calmBest, rng);
          agg.add(report);
          h[report.view]![reportPattern(report.report as Uint32Array, 4)]! += 1;
        }
        estimates(plan, agg, h, scores)
          .slice(0, 2)
          .forEach((after, i) => {
            const key = `${beta} ${attack} ${i === 0 ? "calm" : "pattern"}`;
            ratios.set(key, [...(ratios.get(key) ?? []), (after - before[i]!) / floor]);
          });
      }
    }
  }
  for (const beta of betas)
    for (const attack of attacks)
      console.log(
        `oue eps=${eps} beta=${beta} ${attack}, ${seeds} seeds, n=${n}, gain/floor: calm-core ${show(ratios.get(`${beta} ${attack} calm`)!)}; pattern (2 x cap) ${show(ratios.get(`${beta} ${attack} pattern`)!)}`,
      );
  /** mean(xs) / mean(ys) with a delta-method standard error, paired over seeds. */
  const ratioOf = (xs: number[], ys: number[]) => {
    const [a, b] = [meanCi(xs), meanCi(ys)];
    const cov = ys.reduce((acc, y, i) => acc + (y - b.mean) * (xs[i]! - a.mean), 0) / (seeds - 1);
    const r = a.mean / b.mean;
    const se =
      r *
      Math.sqrt((a.sd ** 2 / a.mean ** 2 + b.sd ** 2 / b.mean ** 2 - (2 * cov) / (a.mean * b.mean)) / seeds);
    return `${r.toFixed(3)} +- ${(1.96 * se).toFixed(3)}`;
  };
  const mean = (xs: number[]) => meanCi(xs).mean.toExponential(3);
  console.log(
    `oue eps=${eps} no attack, ${seeds} seeds, n=${n}: mean squared error of the target cell: calm-core release ${mean(sq[0])}, consistency only ${mean(sq[2])}, pattern ${mean(sq[1])}; pattern / consistency only ${ratioOf(sq[1], sq[2])} (QP: ${eps === 1 ? "1.030" : "1.128"}), pattern / release ${ratioOf(sq[1], sq[0])}`,
  );
}
