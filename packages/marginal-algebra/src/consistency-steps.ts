import type { MarginalTable } from "./api.js";
import { positionsIn } from "./attribute-set.js";
import { cachedProjectionMap } from "./projection-map.js";
import { checkViews } from "./view-check.js";

/** @internal One step of the consistency pass (../../../docs/algorithms.md#consistency): an attribute set and the views that contain it. */
export interface ConsistencyStep {
  /** The attribute set A (ascending). */
  readonly attributes: readonly number[];
  /** |V_A|. */
  readonly size: number;
  /** Indices of the views containing A. */
  readonly members: readonly number[];
  /** Per member: cell of the view -> cell of A. */
  readonly maps: readonly Uint32Array[];
  /** Per member: C_i = |V_i| / |V_A|, the number of view cells per cell of A. */
  readonly spreads: readonly number[];
  /** Per member: w_i = (1 / C_i) / sum_j (1 / C_j). */
  readonly weights: readonly number[];
}

/** @internal The steps for one shape of views, in topological order (smaller sets first). */
export interface ConsistencyPlan {
  readonly viewCount: number;
  readonly steps: readonly ConsistencyStep[];
}

/** Bitset of an attribute set as 32-bit words. */
function maskOf(attributes: readonly number[], words: number): Uint32Array {
  const mask = new Uint32Array(words);
  for (const a of attributes) mask[a >>> 5] |= 1 << (a & 31);
  return mask;
}

function attributesOf(mask: Uint32Array): number[] {
  const out: number[] = [];
  for (let w = 0; w < mask.length; w++) {
    let word = mask[w]!;
    while (word !== 0) {
      const low = word & -word;
      out.push(w * 32 + 31 - Math.clz32(low));
      word = (word ^ low) >>> 0;
    }
  }
  return out;
}

/**
 * @internal Build the §3.2 plan for a list of views: validate them (same unit,
 * equal cardinalities for shared attributes), close their attribute sets under
 * intersection (always including the empty set), keep the sets contained in at
 * least two views, and order them by size (a topological order of the subset
 * relation). O(|closure| m (d / 32)) for the closure plus the projection maps.
 */
export function consistencyPlan(views: readonly MarginalTable[], where: string): ConsistencyPlan {
  const { cardinalityOf, maxAttribute } = checkViews(views, where);
  const words = Math.max(1, (maxAttribute >>> 5) + 1);
  const viewMasks = views.map((view) => maskOf(view.attributes, words));

  // Closure under intersection: every intersection of some views is reached by
  // intersecting a known set with one more view.
  const queue: Uint32Array[] = [];
  const keyOf =
    words === 1 ? (mask: Uint32Array): number | string => mask[0]! : (mask: Uint32Array) => mask.join(",");
  const closure = new Map<number | string, Uint32Array>();
  const add = (mask: Uint32Array) => {
    const key = keyOf(mask);
    if (!closure.has(key)) {
      closure.set(key, mask);
      queue.push(mask);
    }
  };
  add(new Uint32Array(words));
  for (const mask of viewMasks) add(mask);
  const scratch = new Uint32Array(words);
  for (let q = 0; q < queue.length; q++) {
    const mask = queue[q]!;
    for (const viewMask of viewMasks) {
      for (let w = 0; w < words; w++) scratch[w] = mask[w]! & viewMask[w]!;
      if (!closure.has(keyOf(scratch))) add(Uint32Array.from(scratch));
    }
  }

  const steps: ConsistencyStep[] = [];
  for (const mask of closure.values()) {
    const members: number[] = [];
    viewMasks.forEach((viewMask, i) => {
      for (let w = 0; w < words; w++) if ((mask[w]! & ~viewMask[w]!) !== 0) return;
      members.push(i);
    });
    if (members.length < 2) continue;
    const attributes = attributesOf(mask);
    let size = 1;
    for (const a of attributes) size *= cardinalityOf.get(a)!;
    const maps = members.map((i) =>
      cachedProjectionMap(views[i]!.cardinalities, positionsIn(attributes, views[i]!.attributes)),
    );
    const spreads = members.map((i) => views[i]!.cells.length / size);
    const inverseSum = spreads.reduce((sum, c) => sum + 1 / c, 0);
    const weights = spreads.map((c) => 1 / c / inverseSum);
    steps.push({ attributes, size, members, maps, spreads, weights });
  }
  steps.sort((x, y) => x.attributes.length - y.attributes.length || compareSets(x.attributes, y.attributes));
  return { viewCount: views.length, steps };
}

function compareSets(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/**
 * @internal Run the plan's steps on `cells` (one array per view, modified in
 * place): for each set A, T_i = projection of view i onto A, T = sum_i w_i T_i,
 * and every cell u of view i gets + (T[u_A] - T_i[u_A]) / C_i. O(sum over steps
 * and members of |V_i|).
 */
export function applyConsistency(plan: ConsistencyPlan, cells: readonly Float64Array[]): void {
  let buffer = new Float64Array(64);
  for (const step of plan.steps) {
    const size = step.size;
    const s = step.members.length;
    if (buffer.length < size * (s + 1)) buffer = new Float64Array(size * (s + 1));
    const target = buffer.subarray(0, size);
    target.fill(0);
    for (let j = 0; j < s; j++) {
      const view = cells[step.members[j]!]!;
      const map = step.maps[j]!;
      const projection = buffer.subarray(size * (j + 1), size * (j + 2));
      projection.fill(0);
      for (let u = 0; u < view.length; u++) projection[map[u]] += view[u];
      const w = step.weights[j]!;
      for (let c = 0; c < size; c++) target[c] += w * projection[c];
    }
    for (let j = 0; j < s; j++) {
      const view = cells[step.members[j]!]!;
      const map = step.maps[j]!;
      const projection = buffer.subarray(size * (j + 1), size * (j + 2));
      const inverseSpread = 1 / step.spreads[j]!;
      // Reuse the projection slot for the per-cell correction (T - T_i) / C_i.
      for (let c = 0; c < size; c++) projection[c] = (target[c] - projection[c]) * inverseSpread;
      for (let u = 0; u < view.length; u++) view[u] += projection[map[u]];
    }
  }
}
