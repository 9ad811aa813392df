import type { MarginalProtocol, ProtocolPlan, RecordStore } from "@calm-ldp/marginal-algebra";
import type { Rng } from "@calm-ldp/random";
import type { RunOptions, RunResult } from "./api.js";
import { CannotRunError, fail } from "./errors.js";

/**
 * Run a whole population (every record of `store` is one user) through a method
 * and return the filled aggregator with the path used:
 * - "counts": the method's exact count-level `simulate` (throws `CannotRunError`
 *   for a method without one: EM, InpEM, InpOLH);
 * - "per-user": `simulatePerUser`, every record through the real client kernel,
 *   batched (a method without it: every record through `report` and `add`, one
 *   at a time);
 * - "auto" (default): "counts" where the method has it, else "per-user".
 * Both paths give the same distribution of estimates (tested per method). Then
 * `method.estimate(plan, result.aggregator)` gives the synopsis. This is the one
 * population runner: the experiment harness runs every method through it. Cost:
 * O(1) plus the method's simulation or per-user cost (O(n d) to O(n D) by method).
 */
export function runMethod<Plan extends ProtocolPlan, Report>(
  method: MarginalProtocol<Plan, Report>,
  plan: Plan,
  store: RecordStore,
  rng: Rng,
  options: RunOptions = {},
): RunResult<Report> {
  const path = options.path ?? "auto";
  if (path !== "auto" && path !== "counts" && path !== "per-user")
    fail("runMethod", 'path must be "auto", "counts" or "per-user"', path);
  if (path === "counts" && method.simulate === undefined) {
    throw new CannotRunError(
      `runMethod: ${method.id} has no exact count-level simulation; use path "per-user" or "auto"`,
    );
  }
  if (path !== "per-user" && method.simulate !== undefined)
    return { aggregator: method.simulate(plan, store, rng), path: "counts" };
  if (method.simulatePerUser !== undefined)
    return { aggregator: method.simulatePerUser(plan, store, rng), path: "per-user" };
  const aggregator = method.createAggregator(plan);
  const d = store.columns.length;
  const record = new Array<number>(d);
  for (let r = 0; r < store.size; r++) {
    for (let a = 0; a < d; a++) record[a] = store.columns[a]![r]!;
    aggregator.add(method.report(plan, record, rng));
  }
  return { aggregator, path: "per-user" };
}
