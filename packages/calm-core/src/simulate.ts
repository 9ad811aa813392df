import type { RecordStore } from "@calm-ldp/marginal-algebra";
import { partition, type Rng } from "@calm-ldp/random";
import { CalmAggregator } from "./aggregator.js";
import type { CalmPlan } from "./api.js";
import { InvalidParameterError, InvalidRecordError } from "./errors.js";
import { planRuntime } from "./runtime.js";

/** How {@link simulateCalm} draws the aggregate. */
export type SimulationPath = "counts" | "per-user";

/** Options of {@link simulateCalm}. */
export interface SimulateCalmOptions {
  /** "counts" (default): count-level draws per view; "per-user": every user's report through the client kernel. */
  path?: SimulationPath;
}

/**
 * Run a whole population through CALM: every record is one user. Users pick
 * their group uniformly (independently, as clients do) and project onto its view;
 * then, per view,
 * - "per-user": every user's cell is perturbed by the view oracle's client kernel
 *   (batched, the same law as `calmReport` per user) and the reports aggregated;
 * - "counts": the view's true cell counts go through the oracle's count-level
 *   simulation, which draws the support counts with the distribution the
 *   per-user reports would give (binomial/multinomial, ALGORITHMS.md §2).
 * Returns the filled aggregator. Cost: O(n l) for grouping and projection, then
 * O(n * report cost) per-user or O(sum of view cells) count-level.
 */
export function simulateCalm(
  plan: CalmPlan,
  store: RecordStore,
  rng: Rng,
  options: SimulateCalmOptions = {},
): CalmAggregator {
  const path = options.path ?? "counts";
  if (path !== "counts" && path !== "per-user")
    throw new InvalidParameterError(
      `simulateCalm: path must be "counts" or "per-user" (got ${JSON.stringify(path)})`,
    );
  const d = plan.schema.attributes.length;
  if (store.columns.length !== d) {
    throw new InvalidRecordError(
      `simulateCalm: the record store has ${store.columns.length} attributes, the plan's schema ${d}`,
    );
  }
  plan.schema.attributes.forEach((attribute, a) => {
    const storeCardinality = store.schema.attributes[a]?.labels.length;
    if (storeCardinality !== attribute.labels.length) {
      throw new InvalidRecordError(
        `simulateCalm: attribute ${a} has ${storeCardinality} categories in the store, ${attribute.labels.length} in the plan`,
      );
    }
  });
  const runtime = planRuntime(plan);
  const m = plan.views.length;
  const n = store.size;
  const groups = partition(rng, n, m);
  const cells = new Uint32Array(n);
  const viewAttributes = plan.views.map((view) => view.attributes);
  for (let r = 0; r < n; r++) {
    const g = groups[r]!;
    const attributes = viewAttributes[g]!;
    const cardinalities = runtime.viewCardinalities[g]!;
    let index = 0;
    for (let i = 0; i < attributes.length; i++)
      index = index * cardinalities[i]! + store.columns[attributes[i]!]![r]!;
    cells[r] = index;
  }
  const aggregator = new CalmAggregator(plan);
  if (path === "counts") {
    const trueCounts = plan.views.map((view) => new Float64Array(view.cells));
    const sizes = new Float64Array(m);
    for (let r = 0; r < n; r++) {
      trueCounts[groups[r]!]![cells[r]!]!++;
      sizes[groups[r]!]!++;
    }
    trueCounts.forEach((counts, v) => {
      if (sizes[v]! > 0)
        aggregator.views[v]!.addCounts(runtime.oracles[v]!.simulateCounts(counts, rng), sizes[v]!);
    });
    return aggregator;
  }
  // Per-user: counting sort of the users' cells by group, then one batch per view.
  const offsets = new Uint32Array(m + 1);
  for (let r = 0; r < n; r++) offsets[groups[r]! + 1]!++;
  for (let v = 0; v < m; v++) offsets[v + 1]! += offsets[v]!;
  const sorted = new Uint32Array(n);
  const cursor = offsets.slice(0, m);
  for (let r = 0; r < n; r++) sorted[cursor[groups[r]!]!++] = cells[r]!;
  for (let v = 0; v < m; v++) {
    const values = sorted.subarray(offsets[v]!, offsets[v + 1]!);
    if (values.length > 0) aggregator.addBatch(v, runtime.oracles[v]!.perturbBatch(values, rng));
  }
  return aggregator;
}
