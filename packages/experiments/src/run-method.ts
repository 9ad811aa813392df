import { runMethod } from "@calm-ldp/baselines";
import type { ProtocolPlan, RecordStore, ReportAggregator } from "@calm-ldp/marginal-algebra";
import type { Rng } from "@calm-ldp/random";
import type { HarnessMethod, PopulationPath } from "./api.js";

/**
 * The aggregate of a whole population under `method`, by baselines' `runMethod`
 * (the one runner): "counts" uses the method's count-level `simulate` (exact
 * distribution) when it has one and falls back to the per-user path otherwise;
 * "per-user" runs the method's batched per-user path, or every record through
 * `report` and `add`. O(n * report cost), or the method's simulation cost.
 */
export function runPopulation(
  method: HarnessMethod,
  plan: ProtocolPlan,
  store: RecordStore,
  rng: Rng,
  path: PopulationPath,
): ReportAggregator<unknown> {
  return runMethod(method, plan, store, rng, { path: path === "counts" ? "auto" : "per-user" }).aggregator;
}
