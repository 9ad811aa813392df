import type { ProtocolPlan, RecordStore, ReportAggregator } from "@calm-ldp/marginal-algebra";
import type { Rng } from "@calm-ldp/random";
import type { HarnessMethod, PopulationPath } from "./api.js";

/**
 * The aggregate of a whole population under `method`:
 * - "counts": the method's count-level `simulate` (exact distribution), when it has one;
 * - "per-user" (or no `simulate`): the method's batched per-user path when it has
 *   one, otherwise every record through `report` and `add`, one at a time.
 * O(n * report cost) per user, or the method's simulation cost.
 */
export function runPopulation(
  method: HarnessMethod,
  plan: ProtocolPlan,
  store: RecordStore,
  rng: Rng,
  path: PopulationPath,
): ReportAggregator<unknown> {
  if (path === "counts" && method.simulate) return method.simulate(plan, store, rng);
  if (method.simulatePerUser) return method.simulatePerUser(plan as never, store, rng);
  const aggregator = method.createAggregator(plan);
  const d = store.columns.length;
  const record = new Array<number>(d);
  for (let r = 0; r < store.size; r++) {
    for (let a = 0; a < d; a++) record[a] = store.columns[a]![r]!;
    aggregator.add(method.report(plan, record, rng));
  }
  return aggregator;
}
