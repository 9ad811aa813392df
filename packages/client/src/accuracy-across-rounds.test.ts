import { type CalmPlan, createCalmAggregator, estimateCalm } from "@calm-ldp/calm-core";
import { recordCellIndex } from "@calm-ldp/marginal-algebra";
import { type Rng, seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import {
  memoizedReport,
  type ReporterCore,
  type ReporterMemo,
  reporterCore,
  reporterView,
} from "./reporter-core.js";
import { wireKindPlans } from "./testing.js";

/*
 * Accuracy of repeated collection through the reporter's sampling core (what
 * createReporter runs), estimated by calm-core's estimateCalm (with instantEps
 * when the reports pass the instantaneous layer).
 *
 * Notation, one view v, cell x, N_v users in the group (kept across rounds), the
 * permanent oracle at eps (p1, q1), the layer (p2, q2; without a layer p2 = 1,
 * q2 = 0), composed P = Pr[report supports x | cell x], Q = otherwise. For a user
 * u, pi_u = p1 or q1 (permanent supports x) and s_u = P(1-P) or Q(1-Q) (report
 * supports x) by whether her cell is x. The round estimate
 *   f_t(x) = (C_t(x)/N_v - Q) / (P - Q)
 * is unbiased for the group's fraction in x, with
 *   Var f_t = sum_u s_u / (N_v (P - Q))^2,
 * and for two rounds s, t in which u's cell is the same, her two indicators share
 * the permanent response:
 *   Cov_u = (p2 - q2)^2 pi_u (1 - pi_u)   (= s_u without a layer: identical reports),
 * while a user whose cell differs contributes independent terms (another memoized
 * value). So Cov(f_s, f_t) = sum_{u same cell} Cov_u / (N_v (P - Q))^2 and the
 * change f_t - f_s has variance Var f_s + Var f_t - 2 Cov(f_s, f_t).
 */

const Z = 4.5; // |z| bound of every seeded check (a false alarm about 1 in 150,000 per check)

interface Population {
  core: ReporterCore;
  views: Int32Array;
  memos: ReporterMemo[];
}

function population(core: ReporterCore, users: number, rng: Rng): Population {
  return {
    core,
    views: Int32Array.from({ length: users }, () => reporterView(core, null, undefined, rng)),
    memos: Array.from({ length: users }, () => ({})),
  };
}

/** One round: every user reports her record through the core; returns the raw (unbiased) views. */
function round(pop: Population, records: readonly (readonly number[])[], rng: Rng, instantEps?: number) {
  const plan = pop.core.plan;
  const aggregator = createCalmAggregator(plan);
  for (let u = 0; u < records.length; u++) {
    const view = pop.views[u]!;
    aggregator.add({ view, report: memoizedReport(pop.core, view, records[u]!, pop.memos[u]!, rng).payload });
  }
  return estimateCalm(plan, aggregator, { postProcess: false, instantEps }).rawViews.map((t) => t.cells);
}

/** (p1, q1, p2, q2, P, Q) of view v under the core. */
function channel(core: ReporterCore, v: number) {
  const oracle = core.runtime.oracles[v]!;
  const layer = core.layers?.[v];
  return layer
    ? { p1: layer.p1, q1: layer.q1, p2: layer.p2, q2: layer.q2, P: layer.p, Q: layer.q }
    : { p1: oracle.p, q1: oracle.q, p2: 1, q2: 0, P: oracle.p, Q: oracle.q };
}

const cellIn = (plan: CalmPlan, v: number, record: readonly number[]) => {
  const attributes = plan.views[v]!.attributes;
  return recordCellIndex(
    record,
    attributes,
    attributes.map((a) => plan.schema.attributes[a]!.labels.length),
  );
};

/** Var f_t(x), Cov(f_s, f_t) of view v, given the group's cells at s and t (formulas above). */
function moments(
  core: ReporterCore,
  v: number,
  x: number,
  cellsS: readonly number[],
  cellsT: readonly number[],
) {
  const { p1, q1, p2, q2, P, Q } = channel(core, v);
  const n = cellsS.length;
  const scale = (n * (P - Q)) ** 2;
  let varS = 0;
  let varT = 0;
  let cov = 0;
  for (let i = 0; i < n; i++) {
    varS += cellsS[i] === x ? P * (1 - P) : Q * (1 - Q);
    varT += cellsT[i] === x ? P * (1 - P) : Q * (1 - Q);
    if (cellsS[i] === cellsT[i]) {
      const pi = cellsS[i] === x ? p1 : q1;
      cov += (p2 - q2) ** 2 * pi * (1 - pi);
    }
  }
  return { varS: varS / scale, varT: varT / scale, cov: cov / scale };
}

/** Skewed records: b0 ~ Bern(share), b1 = b0 with probability 0.8, others Bern(1/2) (or uniform ternary). */
function drawRecord(plan: CalmPlan, rng: Rng, share: number): number[] {
  const u = () => rng.nextUint32() / 2 ** 32;
  const cards = plan.schema.attributes.map((a) => a.labels.length);
  const record = cards.map((c) => Math.floor(u() * c));
  record[0] = u() < share ? 1 : 0;
  record[1] = u() < 0.8 ? record[0]! : 1 - record[0]!;
  return record;
}

describe("accuracy across rounds (reporter core + estimateCalm)", () => {
  const plans = wireKindPlans();
  for (const [name, instantEps] of [
    ["grr", undefined],
    ["grr", 1],
    ["oue", 1],
  ] as const) {
    it(`${name}${instantEps ? `, instantEps ${instantEps}` : ""}: per-round view estimates are unbiased, with the formula's variance and cross-round covariance (400 seeded trials, |z| <= ${Z})`, () => {
      const plan = plans[name]!;
      const core = reporterCore(plan, instantEps);
      const rng = seededRng(500 + (instantEps ?? 0));
      const users = 3000;
      const records = Array.from({ length: users }, () => drawRecord(plan, rng, 0.3));
      const trials = 400;
      const cells = plan.views.map((v) => v.cells);
      // Per (view, cell): sum over trials of the standardized error of round 1; per trial the mean
      // over cells of z1^2 and of z1 z2 / rho (rho = formula correlation), for the variance checks.
      const sums = cells.map((c) => new Float64Array(c));
      const squares: number[] = [];
      const products: number[] = [];
      for (let trial = 0; trial < trials; trial++) {
        const pop = population(core, users, rng);
        const first = round(pop, records, rng, instantEps);
        const second = round(pop, records, rng, instantEps); // unchanged records
        let sq = 0;
        let prod = 0;
        let count = 0;
        plan.views.forEach((_, v) => {
          const group = records.filter((_, u) => pop.views[u] === v).map((r) => cellIn(plan, v, r));
          for (let x = 0; x < cells[v]!; x++) {
            const truth = group.filter((c) => c === x).length / group.length;
            const { varS, cov } = moments(core, v, x, group, group);
            const z1 = (first[v]![x]! - truth) / Math.sqrt(varS);
            const z2 = (second[v]![x]! - truth) / Math.sqrt(varS);
            sums[v]![x]! += z1;
            sq += z1 * z1;
            prod += z1 * z2 - cov / varS; // E[z1 z2] = Cov / Var
            count++;
          }
        });
        squares.push(sq / count);
        products.push(prod / count);
      }
      // Unbiased: per (view, cell), the mean standardized error over independent trials.
      let worst = 0;
      for (const row of sums) for (const s of row) worst = Math.max(worst, Math.abs(s / Math.sqrt(trials)));
      // Variance and covariance: trial means are independent; z-test on their average.
      const zOf = (values: number[], expected: number) => {
        const mean = values.reduce((a, b) => a + b, 0) / values.length;
        const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1));
        return { mean, z: (mean - expected) / (sd / Math.sqrt(values.length)) };
      };
      const variance = zOf(squares, 1);
      const covariance = zOf(products, 0);
      console.log(
        `${name} instantEps ${instantEps}: worst |z| of the mean error over ${plan.views.length * cells[0]!} cells ${worst.toFixed(2)}; E[z^2] ${variance.mean.toFixed(4)} (z ${variance.z.toFixed(2)}); E[z1 z2] - rho ${covariance.mean.toFixed(4)} (z ${covariance.z.toFixed(2)})`,
      );
      expect(worst).toBeLessThanOrEqual(Z);
      expect(Math.abs(variance.z)).toBeLessThanOrEqual(Z);
      expect(Math.abs(covariance.z)).toBeLessThanOrEqual(Z);
    }, 120_000);
  }

  for (const instantEps of [undefined, 1] as const) {
    it(`30 rounds, 10% of users changing per round (a rising trend): the 2-way marginal (b0, b1) is followed${instantEps ? " (instantEps 1)" : ""}`, () => {
      const plan = plans.grr!;
      const core = reporterCore(plan, instantEps);
      const v = plan.views.findIndex((view) => view.attributes.join() === "0,1");
      const x = 3; // cell (b0, b1) = (1, 1)
      const rng = seededRng(600 + (instantEps ?? 0));
      const users = 100_000;
      const rounds = 30;
      const records = Array.from({ length: users }, () => drawRecord(plan, rng, 0.2));
      const pop = population(core, users, rng);
      const members = [...pop.views.keys()].filter((u) => pop.views[u] === v);
      const estimates: number[] = [];
      const truths: number[] = [];
      const groupTruths: number[] = [];
      const history: number[][] = [];
      let z = 0;
      for (let t = 0; t < rounds; t++) {
        if (t > 0)
          for (let u = 0; u < users; u++)
            if (rng.nextUint32() < 0.1 * 2 ** 32)
              records[u] = drawRecord(plan, rng, 0.2 + (0.6 * t) / (rounds - 1));
        const raw = round(pop, records, rng, instantEps);
        const cells = members.map((u) => cellIn(plan, v, records[u]!));
        history.push(cells);
        estimates.push(raw[v]![x]!);
        groupTruths.push(cells.filter((c) => c === x).length / cells.length);
        truths.push(records.filter((r) => r[0] === 1 && r[1] === 1).length / users);
        const { varT } = moments(core, v, x, cells, cells);
        z = Math.max(z, Math.abs(estimates[t]! - groupTruths[t]!) / Math.sqrt(varT));
      }
      // The change over the campaign, against the formula's variance of a difference.
      const { varS, varT, cov } = moments(core, v, x, history[0]!, history[rounds - 1]!);
      const change = estimates[rounds - 1]! - estimates[0]!;
      const groupChange = groupTruths[rounds - 1]! - groupTruths[0]!;
      const sdChange = Math.sqrt(varS + varT - 2 * cov);
      const zChange = (change - groupChange) / sdChange;
      // Least-squares slopes over the 30 rounds.
      // slope = sum_t w_t y_t, w_t = (t - mean t) / sum (t - mean t)^2; Var = w' Sigma w, Sigma from the formulas.
      const mt = (rounds - 1) / 2;
      const den = Array.from({ length: rounds }, (_, t) => (t - mt) ** 2).reduce((a, b) => a + b, 0);
      const w = Array.from({ length: rounds }, (_, t) => (t - mt) / den);
      const slope = (ys: number[]) => ys.reduce((acc, y, t) => acc + w[t]! * y, 0);
      let varSlope = 0;
      let varSlopeFresh = 0;
      for (let s = 0; s < rounds; s++)
        for (let t = s; t < rounds; t++) {
          const m = moments(core, v, x, history[s]!, history[t]!);
          if (s === t) {
            varSlope += w[s]! ** 2 * m.varS;
            varSlopeFresh += w[s]! ** 2 * m.varS;
          } else varSlope += 2 * w[s]! * w[t]! * m.cov;
        }
      const zSlope = (slope(estimates) - slope(groupTruths)) / Math.sqrt(varSlope);
      const rmse = Math.sqrt(estimates.reduce((s, e, t) => s + (e - truths[t]!) ** 2, 0) / rounds);
      console.log(
        `trend, instantEps ${instantEps}: truth ${truths[0]!.toFixed(4)} -> ${truths[rounds - 1]!.toFixed(4)}; estimate ${estimates[0]!.toFixed(4)} -> ${estimates[rounds - 1]!.toFixed(4)}; ` +
          `change ${change.toFixed(4)} vs group truth ${groupChange.toFixed(4)} (sd ${sdChange.toFixed(4)}, z ${zChange.toFixed(2)}; fresh noise would give sd ${Math.sqrt(varS + varT).toFixed(4)}); ` +
          `slope per round ${slope(estimates).toFixed(5)} vs group truth ${slope(groupTruths).toFixed(5)} (sd ${Math.sqrt(varSlope).toFixed(5)}, z ${zSlope.toFixed(2)}; fresh noise sd ${Math.sqrt(varSlopeFresh).toFixed(5)}), population truth ${slope(truths).toFixed(5)}; RMSE vs population truth ${rmse.toFixed(4)}; worst per-round |z| ${z.toFixed(2)}; group ${members.length} users`,
      );
      expect(z).toBeLessThanOrEqual(Z);
      expect(Math.abs(zChange)).toBeLessThanOrEqual(Z);
      // The trend is followed: the estimated slope within the formula's z bound of the truth (a rise of about 0.3).
      expect(truths[rounds - 1]! - truths[0]!).toBeGreaterThan(0.2);
      expect(Math.abs(zSlope)).toBeLessThanOrEqual(Z);
      // Memoization correlates the rounds' noise: the change is more precise than with fresh noise.
      expect(cov).toBeGreaterThan(0);
    }, 120_000);
  }
});
