import { CalmAggregator, type CalmPlan, calmReport, viewOracles } from "@calm-ldp/calm-core";
import { seededRng } from "@calm-ldp/random";
import type { SupportCounts } from "./api.js";
import { supportedCells } from "./supported-cells.js";

/**
 * `n` seeded uniform records reported through `plan` (calm-core's `calmReport`):
 * their support counts as the collector's storage holds them (reports per view,
 * `C(x)` per cell), and the in-process aggregator of the same reports. O(n * cells).
 * @internal test and bench support (estimate-marginal.test.ts, bench/interval-cost.ts)
 */
export function simulatedCounts(
  plan: CalmPlan,
  n: number,
  seed: number,
): { counts: SupportCounts; aggregator: CalmAggregator } {
  const rng = seededRng(seed);
  const aggregator = new CalmAggregator(plan);
  const reportsPerView = new Array<number>(plan.m).fill(0);
  const support = plan.views.map((view) => new Float64Array(view.cells));
  const oracles = viewOracles(plan);
  for (let i = 0; i < n; i++) {
    const record = plan.schema.attributes.map((a) => rng.nextUint32() % a.labels.length);
    const report = calmReport(plan, record, { rng });
    aggregator.add(report);
    reportsPerView[report.view]!++;
    for (const cell of supportedCells(oracles[report.view]!, report.report)) support[report.view]![cell]!++;
  }
  return { counts: { reportsPerView, support }, aggregator };
}
