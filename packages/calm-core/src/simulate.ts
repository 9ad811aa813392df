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
 *   per-user reports would give (binomial/multinomial, ../../../docs/algorithms.md#frequency-oracles).
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
  const cells = projectToViews(plan, store, groups, runtime.viewCardinalities);
  const aggregator = new CalmAggregator(plan);
  if (path === "counts") {
    // Flat tally: view v's cells at [offset[v], offset[v] + cells_v).
    const offset = new Uint32Array(m + 1);
    for (let v = 0; v < m; v++) offset[v + 1] = offset[v]! + plan.views[v]!.cells;
    const tally = new Float64Array(offset[m]!);
    const sizes = new Float64Array(m);
    for (let r = 0; r < n; r++) {
      const g = groups[r]!;
      tally[offset[g]! + cells[r]!]!++;
      sizes[g]!++;
    }
    for (let v = 0; v < m; v++) {
      if (sizes[v]! === 0) continue;
      const trueCounts = tally.subarray(offset[v]!, offset[v + 1]!);
      aggregator.views[v]!.addCounts(runtime.oracles[v]!.simulateCounts(trueCounts, rng), sizes[v]!);
    }
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

/**
 * Each user's cell in her group's view (mixed-radix index over the view's
 * attributes). Views are laid out flat so the loop over users does no nested
 * lookups. O(n l).
 */
function projectToViews(
  plan: CalmPlan,
  store: RecordStore,
  groups: Uint32Array,
  viewCardinalities: readonly (readonly number[])[],
): Uint32Array {
  const n = store.size;
  const m = plan.views.length;
  const start = new Uint32Array(m + 1);
  for (let v = 0; v < m; v++) start[v + 1] = start[v]! + plan.views[v]!.attributes.length;
  const attributes = new Uint32Array(start[m]!);
  const radix = new Uint32Array(start[m]!);
  plan.views.forEach((view, v) => {
    view.attributes.forEach((a, i) => {
      attributes[start[v]! + i] = a;
      radix[start[v]! + i] = viewCardinalities[v]![i]!;
    });
  });
  const columns = store.columns;
  const cells = new Uint32Array(n);
  for (let r = 0; r < n; r++) {
    const g = groups[r]!;
    let index = 0;
    for (let j = start[g]!, end = start[g + 1]!; j < end; j++)
      index = index * radix[j]! + columns[attributes[j]!]![r]!;
    cells[r] = index;
  }
  return cells;
}
