/**
 * Where the gain of maximal-gain fakes in uniformly drawn views (what protected
 * mode leaves of `mga-grind-view`) comes from, stage by stage of CALM's release,
 * as a mean over seeded runs with a 95% confidence interval (sampled reports, not
 * expected counts). Not a speed benchmark:
 * `flock /tmp/calm-bench.lock npx tsx bench/attack-stages.ts [--seeds 40] [--n 131072] [--oracle grr|oue] [--attack mga] [--target 0,1] [--unary-check 0.01]`.
 *
 * Per seed: n honest users of the issue's probe (d = 8 binary attributes, P(1) = 0.3,
 * k = 2, CALM's plan for n), each reporting through @calm-ldp/client's
 * `createReport` (the real sampler, a uniform view: a token's view has the same law),
 * and F = round(beta n / (1 - beta)) fakes, each `craftReport(attack, ...)` in a
 * uniform view, decoded as the collector does (`decodeReport`). Gain of the target
 * cell (x0, x1) = (1, 1), with fakes minus without (same honest reports), read at
 * each stage: `raw` (the target view's oracle estimate), `consistent` (calm-core's
 * views after `makeConsistent` only), and the full release (`estimateCalm`:
 * consistency and non-negativity alternating) with each non-negativity method of
 * marginal-algebra (ripple, the default; norm-sub; norm-cut). Ratio = gain / floor,
 * floor = beta (e^eps/(e^eps - 1) - f_T), f_T the honest sample's. With
 * `--unary-check alpha` every report (honest and fake) goes through the collector's
 * per-report count test first (`unaryReportCheck`: dropped reports are not counted)
 * and unary views are re-based on the kept law (`keptSupportCounts`), as a
 * protected collector does; the counts dropped are printed. With `--oracle oue`
 * and the probe's plan (28 pair views, target (0, 1)), also the stage `pattern`:
 * the pattern-reading estimator of the target cell capped at 2 x floor
 * (`src/attacks/pattern-scores.ts`, scores from `bench/oue-estimator-bound.py`),
 * computed from the kept reports' bit patterns, which the collector does not
 * store (analysis only; its scores assume the oracle's law, right while the
 * check drops nothing, as in these 4-cell views). Prints per (eps, beta) and stage the mean ratio +- 1.96
 * standard errors over seeds.
 */
import { CalmAggregator, type CalmPlan, estimateCalm, planCalm } from "@calm-ldp/calm-core";
import { createReport, type WireReport } from "@calm-ldp/client";
import { createSchema, makeConsistent, type NonNegativityMethod } from "@calm-ldp/marginal-algebra";
import { seededRng, uniformInt } from "@calm-ldp/random";
import { type AttackName, craftReport, targetView } from "../src/attacks/craft.js";
import fixture from "../src/attacks/pattern-scores.fixture.json";
import { patternEstimate, reportPattern } from "../src/attacks/pattern-scores.js";
import { decodeReport } from "../src/decode-report.js";
import { keptSupportCounts, unaryReportCheck } from "../src/defences/unary-report-check.js";
import { aggregatorFromCounts } from "../src/estimate-marginal.js";

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const seeds = Number(arg("seeds", "40"));
const n = Number(arg("n", String(2 ** 17)));
const oracle = arg("oracle", "grr") as "grr" | "oue";
const attack = arg("attack", "mga") as AttackName;
/** The collector's per-report unary check at this rate (protected mode's default 0.01), or none. */
const check = process.argv.includes("--unary-check") ? Number(arg("unary-check", "0.01")) : undefined;
const d = 8;
const schema = createSchema(Array.from({ length: d }, (_, i) => ({ name: `a${i}`, cardinality: 2 })));
const pair = arg("target", "0,1").split(",").map(Number) as [number, number];
const target = { attributes: pair, values: [1, 1] };
const methods: NonNegativityMethod[] = ["ripple", "norm-sub", "norm-cut"];
const stages = ["raw", "consistent", ...methods.map((m) => `full/${m}`)];

const dropped = { honest: 0, fake: 0 };
/** Per aggregator, its kept unary reports' pattern histograms (4-cell views only), for the `pattern` stage. */
const patterns = new Map<CalmAggregator, Float64Array[]>();
let admitting: "honest" | "fake" = "honest";

/** Count a wire report as the collector would: decoded, and (with the check) dropped when its ones are implausible. */
function admit(aggregator: CalmAggregator, wire: WireReport): void {
  const report = decodeReport(aggregator.plan, wire);
  if (check !== undefined && report.report instanceof Uint32Array) {
    const cells: number[] = [];
    for (let c = 0; c < aggregator.plan.views[report.view]!.cells; c++)
      if ((report.report[c >>> 5]! >>> (c & 31)) & 1) cells.push(c);
    if (unaryReportCheck(aggregator.plan, [{ view: report.view, cells }], check).dropped.length) {
      dropped[admitting]++;
      return;
    }
  }
  aggregator.add(report);
  const histograms = patterns.get(aggregator);
  if (histograms && report.report instanceof Uint32Array)
    histograms[report.view]![reportPattern(report.report, 4)]! += 1;
}

/** The aggregator the collector estimates from with the check on: unary views re-based on the kept law. */
function rebased(plan: CalmPlan, counted: CalmAggregator, alpha: number): CalmAggregator {
  const reportsPerView = counted.views.map((v) => v.reports);
  const support = keptSupportCounts(
    plan,
    counted.views.map((v) => v.counts()),
    reportsPerView,
    alpha,
  );
  return aggregatorFromCounts(plan, { reportsPerView, support: support.map((c) => Float64Array.from(c)) });
}

for (const eps of [1, 0.5]) {
  const plan = planCalm({ schema, n, eps, k: 2 }, oracle === "oue" ? { oracle } : {});
  const tv = targetView(plan, target);
  const at = plan.views[tv]!.attributes;
  if (at.join() !== pair.join()) throw new Error(`no view over exactly (${pair})`);
  const scores =
    oracle === "oue" && plan.m === 28 && pair.join() === "0,1" && plan.views.every((v) => v.cells === 4)
      ? fixture.eps[eps === 1 ? "1.0" : "0.5"].scores
      : undefined;
  const stageNames = scores ? [...stages, "pattern"] : stages;
  for (const beta of [0.01, 0.05]) {
    const ratios: number[][] = stageNames.map(() => []);
    dropped.honest = 0;
    dropped.fake = 0;
    for (let s = 1; s <= seeds; s++) {
      const rng = seededRng(10_000 * s + Math.round(100 * eps) + Math.round(1000 * beta));
      const honest = new CalmAggregator(plan);
      if (scores)
        patterns.set(
          honest,
          plan.views.map(() => new Float64Array(16)),
        );
      let inT = 0;
      admitting = "honest";
      for (let u = 0; u < n; u++) {
        const row = Array.from({ length: d }, () => (rng.nextUint32() / 2 ** 32 < 0.3 ? 1 : 0));
        if (row[0] === 1 && row[1] === 1) inT++;
        admit(honest, createReport(plan, row, { rng }));
      }
      admitting = "fake";
      const fakes = Math.round((beta * n) / (1 - beta));
      const attacked = new CalmAggregator(plan);
      plan.views.forEach((_, v) => {
        attacked.views[v]!.merge(honest.views[v]!);
      });
      if (scores)
        patterns.set(
          attacked,
          patterns.get(honest)!.map((h) => Float64Array.from(h)),
        );
      for (let f = 0; f < fakes; f++)
        admit(attacked, craftReport(attack, plan, target, uniformInt(rng, plan.m), rng));
      const e = Math.exp(eps);
      const floor = beta * (e / (e - 1) - inT / n);
      const read = (counted: CalmAggregator): number[] => {
        const aggregator = check === undefined ? counted : rebased(plan, counted, check);
        const base = estimateCalm(plan, aggregator, { postProcess: false });
        const raw = base.rawViews[tv]!.cells[3]!;
        const consistent = makeConsistent(base.rawViews)[tv]!.cells[3]!;
        const full = methods.map(
          (method) =>
            estimateCalm(plan, aggregator, { postProcessOptions: { method } }).query(pair).cells[3]!,
        );
        const pattern = scores ? [patternEstimate(scores, patterns.get(counted)!)] : [];
        return [raw, consistent, ...full, ...pattern];
      };
      const before = read(honest);
      const after = read(attacked);
      for (let i = 0; i < stageNames.length; i++) ratios[i]!.push((after[i]! - before[i]!) / floor);
      patterns.clear();
    }
    const line = stageNames.map((stage, i) => {
      const xs = ratios[i]!;
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
      const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1));
      return `${stage} ${mean.toFixed(2)} +- ${((1.96 * sd) / Math.sqrt(xs.length)).toFixed(2)}`;
    });
    console.log(
      `${oracle} m=${plan.m} n=${n} eps=${eps} beta=${beta} ${attack}${check === undefined ? "" : ` unary check ${check} (dropped: ${dropped.honest} honest, ${dropped.fake} fake)`}, ${seeds} seeds, gain/floor: ${line.join("; ")}`,
    );
  }
}
