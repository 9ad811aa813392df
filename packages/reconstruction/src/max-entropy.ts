import { createTable, type MarginalTable, projectionMap, validateTable } from "@calm-ldp/marginal-algebra";
import { popcount32 } from "@calm-ldp/random";
import type { MaxEntropyOptions, MaxEntropyResult } from "./api.js";
import { fail } from "./errors.js";
import { ipfSettings, runIpf } from "./ipf.js";

/** Query positions (ascending) of the bits of a mask over the query's positions. */
function positionsOf(mask: number): number[] {
  const out: number[] = [];
  for (let p = 0; mask >>> p !== 0; p++) if ((mask >>> p) & 1) out.push(p);
  return out;
}

/** A constraint candidate: the views whose intersection with the query is one set. */
interface Group {
  /** Bit p set when query attribute p is in the intersection. */
  readonly mask: number;
  readonly views: number[];
}

/**
 * Projection of `view` onto the query attributes in `mask` (positions into the
 * query), accumulated with weight `w` into `out`; the view's positions of those
 * attributes are `viewPositions`.
 */
function addProjection(
  view: MarginalTable,
  viewPositions: readonly number[],
  w: number,
  out: Float64Array,
): void {
  const map = projectionMap(view.cardinalities, viewPositions);
  const cells = view.cells;
  for (let u = 0; u < cells.length; u++) out[map[u]] += w * cells[u];
}

/**
 * The maximum-entropy estimate of the marginal over `attributes` (any order, any
 * cardinalities; the table is over them ascending) from a set of views
 * (../../../docs/algorithms.md#answering-a-query; CALM §4, after PriView):
 * - if a view contains the query, its projection (the weighted mean, weights
 *   1/|V| as in the consistency step, when several do);
 * - otherwise the query's intersections with the views, keeping only the maximal
 *   ones, become constraints (views giving the same intersection are averaged with
 *   weights 1/|V|; negative target cells are set to 0 and every target rescaled to
 *   the constraints' mean total), and iterative proportional fitting from the
 *   uniform table finds the table of maximum entropy that matches them (see
 *   `fitIpf`). Query attributes in no view come out uniform (their cardinality
 *   comes from `options.cardinalities`).
 *
 * Returns the table (non-negative for IPF; in the views' unit, with the
 * constraints' mean total) and diagnostics: sweeps, worst constraint residual,
 * whether the tolerance was reached, whether the constraints were inconsistent.
 * Views must share one unit and agree on the cardinality of the query's
 * attributes; only the views used are checked cell by cell. Cost: O(sum_V k_V) to
 * intersect, O(|V|) per view used, then O(|V_A| * #constraints) per IPF sweep.
 */
export function maxEntropy(
  views: readonly MarginalTable[],
  attributes: readonly number[],
  options: MaxEntropyOptions = {},
): MaxEntropyResult {
  const { tolerance, maxIterations } = ipfSettings("maxEntropy", options);
  if (!views || views.length === 0) fail("maxEntropy", "views must be a non-empty array of tables", 0);
  const { query, positionOf } = checkQuery(attributes);
  const k = query.length;
  const unit = views[0]!.unit;
  const { groups, cardinalities } = intersectViews(views, query, positionOf, options);
  const maximal = maximalGroups(groups);
  const { targets, maxDisagreement: sameSet } = averageTargets(
    views,
    maximal,
    query,
    positionOf,
    cardinalities,
  );
  const totals = targets.map((t) => t.cells.reduce((s, x) => s + x, 0));
  const common = commonTotal(views, totals);
  const table = createTable(query, cardinalities, { unit });
  const summary = (maxDisagreement: number) => ({
    maxDisagreement,
    inconsistent: maxDisagreement > tolerance * Math.abs(common),
  });
  const noFit = { iterations: 0, converged: true, stalled: false, totalRestored: false, clippedMass: 0 };

  // One view covers the query: its (averaged) projection is the answer.
  if (maximal.length === 1 && maximal[0]!.mask === fullMask(k) && k > 0) {
    table.cells.set(targets[0]!.cells);
    return {
      table,
      method: "projection",
      constraints: [query],
      maxResidual: sameSet,
      ...noFit,
      ...summary(sameSet),
    };
  }
  const maxDisagreement = Math.max(sameSet, constraintDisagreement(maximal, targets, totals, common));
  // No view meets the query: the mean view total, spread uniformly.
  if (targets.length === 0) {
    table.cells.fill(common / table.cells.length);
    return { table, method: "ipf", constraints: [], maxResidual: 0, ...noFit, ...summary(maxDisagreement) };
  }
  const clippedMass = clipTargets(targets, totals, common);
  const maps = maximal.map((g) => projectionMap(cardinalities, positionsOf(g.mask)));
  const fit = runIpf(table, targets, maps, Math.max(common, 0), tolerance, maxIterations);
  return {
    ...fit,
    method: "ipf",
    constraints: targets.map((t) => t.attributes),
    maxDisagreement,
    clippedMass,
    inconsistent: fit.stalled || fit.totalRestored || maxDisagreement > tolerance * Math.abs(common),
  };
}

/** The mask of all k query positions. */
function fullMask(k: number): number {
  return k === 0 ? 0 : (2 ** k - 1) | 0;
}

/** Step 1: the query sorted ascending, each attribute's position in it; at most 31 distinct integers >= 0. O(k log k). */
function checkQuery(attributes: readonly number[]): { query: number[]; positionOf: Map<number, number> } {
  const query = [...attributes].sort((x, y) => x - y);
  const positionOf = new Map<number, number>();
  query.forEach((a, i) => {
    if (!Number.isInteger(a) || a < 0)
      fail("maxEntropy", "attribute indices must be integers >= 0", attributes);
    if (i > 0 && query[i - 1] === a) fail("maxEntropy", "attribute indices must be distinct", attributes);
    positionOf.set(a, i);
  });
  if (query.length > 31) fail("maxEntropy", "a query may have at most 31 attributes", query.length);
  return { query, positionOf };
}

/**
 * Step 2: every view's intersection with the query as a mask over query
 * positions, views grouped by it; the query attributes' cardinalities (from the
 * views, which must agree, or `options.cardinalities` for attributes in no view).
 * Checks that every view has view 0's unit. O(sum_V k_V).
 */
function intersectViews(
  views: readonly MarginalTable[],
  query: readonly number[],
  positionOf: ReadonlyMap<number, number>,
  options: MaxEntropyOptions,
): { groups: Map<number, Group>; cardinalities: number[] } {
  const unit = views[0]!.unit;
  const queryCards = new Array<number>(query.length).fill(0);
  const groups = new Map<number, Group>();
  views.forEach((view, v) => {
    if (view?.unit !== unit)
      fail("maxEntropy", `every view must have the unit of view 0 (${unit}); view ${v} has`, view?.unit);
    let mask = 0;
    view.attributes.forEach((a, j) => {
      const p = positionOf.get(a);
      if (p === undefined) return;
      const c = view.cardinalities[j]!;
      if (queryCards[p] === 0) queryCards[p] = c;
      else if (queryCards[p] !== c)
        fail("maxEntropy", `attribute ${a} must have one cardinality (${queryCards[p]}) in every view`, c);
      mask |= 1 << p;
    });
    const group = groups.get(mask);
    if (group) group.views.push(v);
    else groups.set(mask, { mask, views: [v] });
  });
  const cardinalities = query.map((a, p) => {
    const c = queryCards[p] || options.cardinalities?.[a];
    if (c === undefined)
      fail("maxEntropy", `attribute ${a} is in no view: give its cardinality in options.cardinalities`, a);
    if (!Number.isInteger(c) || c < 1)
      fail("maxEntropy", `cardinality of attribute ${a} must be an integer >= 1`, c);
    return c;
  });
  return { groups, cardinalities };
}

/** Step 3: the maximal non-empty intersections (only the covering one when a view contains the query). O(groups^2). */
function maximalGroups(groups: ReadonlyMap<number, Group>): Group[] {
  const ordered = [...groups.values()]
    .filter((g) => g.mask !== 0)
    .sort((x, y) => popcount32(y.mask) - popcount32(x.mask));
  const maximal: Group[] = [];
  for (const g of ordered) if (!maximal.some((h) => (g.mask & h.mask) === g.mask)) maximal.push(g);
  return maximal;
}

/**
 * Step 4: one target per maximal set, the 1/|V|-weighted mean of its views'
 * projections, and the largest spread between views giving the same set. Each
 * view used is validated. O(|V|) per view used.
 */
function averageTargets(
  views: readonly MarginalTable[],
  maximal: readonly Group[],
  query: readonly number[],
  positionOf: ReadonlyMap<number, number>,
  cardinalities: readonly number[],
): { targets: MarginalTable[]; maxDisagreement: number } {
  const unit = views[0]!.unit;
  let maxDisagreement = 0;
  const targets = maximal.map((g) => {
    const positions = positionsOf(g.mask);
    const target = createTable(
      positions.map((p) => query[p]!),
      positions.map((p) => cardinalities[p]!),
      { unit },
    );
    const single = g.views.length === 1 ? null : new Float64Array(target.cells.length);
    const low = single ? new Float64Array(target.cells.length).fill(Number.POSITIVE_INFINITY) : null;
    const high = single ? new Float64Array(target.cells.length).fill(Number.NEGATIVE_INFINITY) : null;
    let weightSum = 0;
    for (const v of g.views) {
      const view = validateTable(views[v]!, "maxEntropy");
      const viewPositions: number[] = [];
      view.attributes.forEach((a, j) => {
        if (positionOf.has(a)) viewPositions.push(j);
      });
      const w = 1 / view.cells.length;
      weightSum += w;
      if (single === null) {
        addProjection(view, viewPositions, 1, target.cells);
      } else {
        single.fill(0);
        addProjection(view, viewPositions, 1, single);
        for (let c = 0; c < single.length; c++) {
          target.cells[c] += w * single[c]!;
          if (single[c]! < low![c]!) low![c] = single[c]!;
          if (single[c]! > high![c]!) high![c] = single[c]!;
        }
      }
    }
    if (single !== null) {
      for (let c = 0; c < target.cells.length; c++) {
        target.cells[c] /= weightSum;
        maxDisagreement = Math.max(maxDisagreement, high![c]! - low![c]!);
      }
    }
    return target;
  });
  return { targets, maxDisagreement };
}

/** Step 5: the total every constraint is fitted to: the targets' mean total, or (no target) the views' mean total. O(targets), or O(sum |V|). */
function commonTotal(views: readonly MarginalTable[], totals: readonly number[]): number {
  if (totals.length > 0) return totals.reduce((s, x) => s + x, 0) / totals.length;
  let common = 0;
  for (const view of views) for (const x of view.cells) common += x;
  return common / views.length;
}

/**
 * Step 6: the largest disagreement between constraints on their shared
 * attributes, the empty set (their totals against the common total) included.
 * O(pairs * target cells).
 */
function constraintDisagreement(
  maximal: readonly Group[],
  targets: readonly MarginalTable[],
  totals: readonly number[],
  common: number,
): number {
  let worst = 0;
  for (const t of totals) worst = Math.max(worst, Math.abs(t - common));
  for (let i = 0; i < targets.length; i++) {
    for (let j = i + 1; j < targets.length; j++) {
      const shared = maximal[i]!.mask & maximal[j]!.mask;
      if (shared === 0) continue;
      const sharedPositions = positionsOf(shared);
      const a = projectOnto(targets[i]!, maximal[i]!.mask, sharedPositions);
      const b = projectOnto(targets[j]!, maximal[j]!.mask, sharedPositions);
      for (let c = 0; c < a.length; c++) worst = Math.max(worst, Math.abs(a[c]! - b[c]!));
    }
  }
  return worst;
}

/**
 * Step 7: make every target non-negative with the common total, in place
 * (negative cells to 0, then rescaled; an all-zero target becomes uniform).
 * Returns the negative mass removed. O(target cells).
 */
function clipTargets(targets: readonly MarginalTable[], totals: readonly number[], common: number): number {
  let clippedMass = 0;
  targets.forEach((target, i) => {
    let negative = false;
    for (const x of target.cells) if (x < 0) negative = true;
    if (!negative && Math.abs(totals[i]! - common) <= 1e-15 * Math.abs(common)) return;
    const cells = target.cells;
    let sum = 0;
    for (let c = 0; c < cells.length; c++) {
      if (cells[c]! < 0) {
        clippedMass -= cells[c]!;
        cells[c] = 0;
      }
      sum += cells[c]!;
    }
    if (sum > 0) for (let c = 0; c < cells.length; c++) cells[c] = (cells[c]! * common) / sum;
    else cells.fill(Math.max(common, 0) / cells.length);
  });
  return clippedMass;
}

/** Project a target over query positions `mask` onto the query positions `shared` (a subset). */
function projectOnto(target: MarginalTable, mask: number, shared: readonly number[]): Float64Array {
  const own = positionsOf(mask);
  const positions = shared.map((p) => own.indexOf(p));
  const map = projectionMap(target.cardinalities, positions);
  let size = 1;
  for (const p of positions) size *= target.cardinalities[p]!;
  const out = new Float64Array(size);
  for (let u = 0; u < target.cells.length; u++) out[map[u]] += target.cells[u]!;
  return out;
}
