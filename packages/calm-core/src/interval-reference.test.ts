import { createTable, makeConsistent, projectTable } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { estimateCalm } from "./estimate.js";
import { planCalm } from "./plan.js";
import { planRuntime } from "./runtime.js";
import { simulateCalm } from "./simulate.js";
import { markovStore } from "./test-support.js";
import { estimateCovariance } from "./view-covariance.js";

/**
 * The analytic interval's variance against a dense reference that shares none of
 * analytic-index.ts's index or analytic-answer.ts's grouping: the consistent answer is linear in the raw
 * views, so its Jacobian J_V (one column per raw cell of view V) is read off
 * makeConsistent by unit perturbations; then
 *   Cov(answer) = sum_V J_V Cov(f^_V) J_V^T - (diag(f) - f f^T) / n,
 * Cov(f^_V) from the exported `estimateCovariance` on the released view (clipped,
 * normalised), f the released answer's shares.
 */
function referenceCovariance(
  synopsis: ReturnType<typeof estimateCalm>,
  query: number[],
  reportsPerView: readonly number[],
  population: number,
): Float64Array {
  const raw = synopsis.rawViews;
  const base = projectTable(
    makeConsistent(raw).find((v) => query.every((a) => v.attributes.includes(a)))!,
    query,
  ).cells;
  const size = base.length;
  const cov = new Float64Array(size * size);
  const oracles = planRuntime(synopsis.plan).oracles;
  raw.forEach((view, v) => {
    const cells = view.cells.length;
    const J = new Float64Array(size * cells);
    for (let u = 0; u < cells; u++) {
      const bumped = raw.map((t, w) => {
        if (w !== v) return t;
        const c = Float64Array.from(t.cells);
        c[u]! += 1;
        return createTable(t.attributes, t.cardinalities, { cells: c, unit: "fraction" });
      });
      const answer = projectTable(
        makeConsistent(bumped).find((t) => query.every((a) => t.attributes.includes(a)))!,
        query,
      ).cells;
      for (let a = 0; a < size; a++) J[a * cells + u] = answer[a]! - base[a]!;
    }
    const released = synopsis.views[v]!.cells.map((x) => Math.max(0, x));
    const mass = released.reduce((s, x) => s + x, 0);
    const fitted = released.map((x) => x / mass);
    const { diag, rank1 } = estimateCovariance({ fitted, reports: reportsPerView[v]!, oracle: oracles[v]! });
    for (let a = 0; a < size; a++)
      for (let b = 0; b < size; b++) {
        let s = 0;
        for (let u = 0; u < cells; u++) s += J[a * cells + u]! * diag[u]! * J[b * cells + u]!;
        for (const r of rank1) {
          let ja = 0;
          let jb = 0;
          for (let u = 0; u < cells; u++) {
            ja += J[a * cells + u]! * r[u]!;
            jb += J[b * cells + u]! * r[u]!;
          }
          s -= ja * jb;
        }
        cov[a * size + b]! += s;
      }
  });
  const released = synopsis.query(query).cells.map((x) => Math.max(0, x));
  const mass = released.reduce((s, x) => s + x, 0);
  const share = released.map((x) => x / mass);
  for (let a = 0; a < size; a++)
    for (let b = 0; b < size; b++)
      cov[a * size + b]! -= ((a === b ? share[a]! : 0) - share[a]! * share[b]!) / population;
  return cov;
}

describe("analytic interval variance equals the dense Jacobian reference", () => {
  // Mixed cardinalities (views of different sizes), both oracle families (GRR at eps 3 on
  // small views, OUE on larger ones), 1- to 3-way queries, views meeting a query in 0..3 attributes.
  const cardinalities = [2, 3, 2, 4, 3, 2, 2];
  const n = 2 ** 14;
  const store = markovStore(seededRng(11), n, cardinalities, 0.6);
  for (const [eps, k, l] of [
    [1, 3, 3],
    [3, 2, 2],
    [0.5, 3, 4],
  ] as const) {
    it(`eps ${eps}, k ${k}, views of ${l}`, () => {
      const plan = planCalm({ schema: store.schema, n, eps, k }, { l });
      const aggregator = simulateCalm(plan, store, seededRng(12));
      const synopsis = estimateCalm(plan, aggregator);
      const reports = aggregator.reportsPerView();
      // Subsets of views (covered): the view's first k attributes, its last two, its middle one.
      const queries = [0, 3, 7].flatMap((i) => {
        const view = plan.views[(i * 5) % plan.views.length]!.attributes;
        return [view.slice(0, k), view.slice(-2), [view[view.length >> 1]!]];
      });
      for (const query of queries) {
        const answer = synopsis.query(query, { interval: 0.95, covariance: true });
        expect(answer.intervalMethod).toBe("analytic");
        const reference = referenceCovariance(synopsis, query, reports, aggregator.reports);
        const size = answer.cells.length;
        for (let a = 0; a < size; a++) {
          const expected = Math.max(0, reference[a * size + a]!);
          expect(answer.standardError[a]! ** 2).toBeCloseTo(expected, 12);
          expect(Math.abs(answer.standardError[a]! ** 2 / expected - 1)).toBeLessThan(1e-8);
          for (let b = 0; b < size; b++)
            expect(answer.covariance![a * size + b]!).toBeCloseTo(reference[a * size + b]!, 12);
        }
      }
    });
  }
});
