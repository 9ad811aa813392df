/**
 * The linear map from every view's cell estimates to one released cell after
 * calm-core's consistency step (`makeConsistent`), printed as JSON for the
 * linear programs of `bench/oue-estimator-bound.py` and `bench/view-oracle-bound.py`.
 * Not a speed benchmark: `npx tsx bench/consistency-map.ts [--n 131072] [--target 0,1]`.
 *
 * Setting: the probe (d = 8 binary attributes, k = 2, CALM's plan for n: all
 * 28 pair views at n = 2^17), planned with OUE views (the views, hence the map, are
 * the same with GRR: equal views get equal weights). Consistency is linear, so
 * released(T) = r0 + sum_v w_v . f_v with w_v[c] = released(T) after adding 1 to
 * cell c of view v minus before (exact up to rounding). Prints
 * `{ "<eps>": { tv, attrs, w, byCell } }` for eps 1 and 0.5: tv the target's view, attrs
 * each view's attributes, w[v][c] the coefficient of view v's cell c (byCell[t]:
 * the same for the target view's cell t instead of its last) (cell index
 * sum_j value_j * prod_{j' > j} card_j', last attribute fastest). O(sum of cells)
 * consistency runs.
 */
import { pathToFileURL } from "node:url";
import { CalmAggregator, type CalmPlan, estimateCalm, planCalm } from "@calm-ldp/calm-core";
import { createSchema, makeConsistent } from "@calm-ldp/marginal-algebra";
import { targetView } from "../src/attacks/craft.js";

/**
 * w[v][c]: the change of view `tv`'s cell `cell` (default its last) after calm-core's consistency when
 * view v's estimate of cell c grows by 1 (consistency is linear). O(sum of cells)
 * consistency runs.
 */
export function consistencyWeights(plan: CalmPlan, tv: number, cell?: number): number[][] {
  const aggregator = new CalmAggregator(plan);
  plan.views.forEach((view, v) => {
    aggregator.views[v]!.addCounts(
      Array.from({ length: view.cells }, () => 1000),
      4000,
    );
  });
  const base = estimateCalm(plan, aggregator, { postProcess: false }).rawViews;
  const at = cell ?? base[tv]!.cells.length - 1;
  const released = (views: typeof base) => makeConsistent(views)[tv]!.cells[at]!;
  const r0 = released(base);
  return base.map((table, v) =>
    Array.from(table.cells, (_, c) => {
      const moved = base.map((t) => ({ ...t, cells: Float64Array.from(t.cells) }));
      moved[v]!.cells[c]! += 1;
      return released(moved) - r0;
    }),
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const arg = (name: string, fallback: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1]! : fallback;
  };
  const n = Number(arg("n", String(2 ** 17)));
  const pair = arg("target", "0,1").split(",").map(Number);
  const schema = createSchema(Array.from({ length: 8 }, (_, i) => ({ name: `a${i}`, cardinality: 2 })));
  const out: Record<string, unknown> = {};
  for (const eps of [1, 0.5]) {
    const plan = planCalm({ schema, n, eps, k: 2 }, { oracle: "oue" });
    const tv = targetView(plan, { attributes: pair, values: pair.map(() => 1) });
    out[String(eps)] = {
      tv,
      attrs: plan.views.map((v) => v.attributes),
      w: consistencyWeights(plan, tv),
      byCell: Array.from({ length: plan.views[tv]!.cells }, (_, c) => consistencyWeights(plan, tv, c)),
    };
  }
  console.log(JSON.stringify(out));
}
