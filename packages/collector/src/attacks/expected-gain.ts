import { CalmAggregator, type CalmPlan, estimateCalm } from "@calm-ldp/calm-core";
import { type AttackTarget, matchingCells, unaryPq } from "./craft.js";

/** Where the fake clients of {@link expectedGain} lie. */
export type FakePlacement = "every-view" | "target-views-only";

/** Support probabilities (p, q) of view `v`'s oracle: C(x) has mean N (q + (p - q) f(x)). */
function supportPq(plan: CalmPlan, v: number): { p: number; q: number } {
  const view = plan.views[v]!;
  if (view.oracle !== "grr") return unaryPq(view.oracle, plan.eps);
  const e = Math.exp(plan.eps);
  return { p: e / (e + view.cells - 1), q: 1 / (e + view.cells - 1) };
}

/**
 * A fake's expected support per cell of view `v` under maximal gain (as `craftReport`
 * builds it): GRR a uniform matching cell (1/|M| on M); unary every matching bit,
 * padded with random other bits to round(p + (c - 1) q) ones. O(cells).
 */
function fakeSupport(plan: CalmPlan, v: number, target: AttackTarget, honestCount: boolean): Float64Array {
  const cells = plan.views[v]!.cells;
  const matching = new Set(matchingCells(plan, v, target));
  const out = new Float64Array(cells);
  if (plan.views[v]!.oracle === "grr") {
    for (const c of matching) out[c] = 1 / matching.size;
    return out;
  }
  const { p, q } = supportPq(plan, v);
  const mu = p + (cells - 1) * q;
  // b ones: round(mu) (mga), or floor(mu) + Bernoulli(frac(mu)) (mga-honest-count).
  const laws: [number, number][] = honestCount
    ? [
        [Math.floor(mu), 1 - (mu % 1)],
        [Math.floor(mu) + 1, mu % 1],
      ]
    : [[Math.round(mu), 1]];
  const set = matching.size === cells ? 0 : matching.size;
  for (const [b, weight] of laws) {
    const hits = honestCount ? Math.min(b, set) : set;
    const pad = cells > hits ? Math.max(0, b - hits) / (cells - set) : 0;
    for (let c = 0; c < cells; c++) out[c]! += weight * (matching.has(c) && set > 0 ? hits / set : pad);
  }
  return out;
}

/**
 * The expected gain of maximal-gain fake clients on CALM's released target cell
 * (`estimateCalm`: oracle estimates, consistency, non-negativity, projection),
 * computed on expected support counts instead of sampled ones: N_v = n/m honest
 * reports per view with E C(x) = N_v (q + (p - q) f_v(x)) for the honest view
 * fractions `honest[v]`, plus F_v = beta n / ((1 - beta) m) fakes per view (views
 * drawn uniformly, as tokens assign them). `placement` "every-view" is `craftReport`'s
 * MGA (a fake in a view holding some target attributes supports the matching
 * cells); "target-views-only" lets fakes lie only in views covering all target
 * attributes and report as honest clients elsewhere. `honestCount`: the fakes run
 * `mga-honest-count` (unary reports keep the honest number of ones). Counts are scaled to
 * `scale` reports per view and rounded (the estimate depends on C/N only).
 * Returns released(with fakes) - released(without). Cost: two `estimateCalm` runs.
 */
export function expectedGain(
  plan: CalmPlan,
  target: AttackTarget,
  honest: readonly ArrayLike<number>[],
  beta: number,
  placement: FakePlacement = "every-view",
  honestCount = false,
  scale = 1e9,
): number {
  const fakeShare = beta / (1 - beta);
  const release = (withFakes: boolean): number => {
    const aggregator = new CalmAggregator(plan);
    plan.views.forEach((view, v) => {
      const { p, q } = supportPq(plan, v);
      const covers = target.attributes.every((a) => view.attributes.includes(a));
      const lies = placement === "every-view" || covers;
      const fake = lies ? fakeSupport(plan, v, target, honestCount) : null;
      const fakes = withFakes ? scale * fakeShare : 0;
      const counts = Array.from({ length: view.cells }, (_, x) => {
        const f = honest[v]![x]!;
        const c = scale * (q + (p - q) * f) + (fake ? fakes * fake[x]! : fakes * (q + (p - q) * f));
        return Math.round(c);
      });
      aggregator.views[v]!.addCounts(counts, Math.round(scale + fakes));
    });
    const table = estimateCalm(plan, aggregator).query(target.attributes);
    let cell = 0;
    target.attributes.forEach((a, i) => {
      cell = cell * plan.schema.attributes[a]!.labels.length + target.values[i]!;
    });
    return table.cells[cell]!;
  };
  return release(true) - release(false);
}
