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
  const query = [...attributes].sort((x, y) => x - y);
  const positionOf = new Map<number, number>();
  query.forEach((a, i) => {
    if (!Number.isInteger(a) || a < 0)
      fail("maxEntropy", "attribute indices must be integers >= 0", attributes);
    if (i > 0 && query[i - 1] === a) fail("maxEntropy", "attribute indices must be distinct", attributes);
    positionOf.set(a, i);
  });
  if (query.length > 31) fail("maxEntropy", "a query may have at most 31 attributes", query.length);
  const k = query.length;
  const full = k === 0 ? 0 : (2 ** k - 1) | 0;
  const unit = views[0]!.unit;
  const queryCards = new Array<number>(k).fill(0);

  // Intersections with the query, as masks over query positions; group views by them.
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

  // Maximal intersections (all groups when one covers the query: then only it is maximal).
  const ordered = [...groups.values()]
    .filter((g) => g.mask !== 0)
    .sort((x, y) => popcount32(y.mask) - popcount32(x.mask));
  const maximal: Group[] = [];
  for (const g of ordered) if (!maximal.some((h) => (g.mask & h.mask) === g.mask)) maximal.push(g);

  // One target per maximal set: the 1/|V|-weighted mean of its views' projections.
  let maxDisagreement = 0;
  const targets = maximal.map((g) => {
    const positions = positionsOf(g.mask);
    const set = positions.map((p) => query[p]!);
    const target = createTable(
      set,
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
  const totals = targets.map((t) => t.cells.reduce((s, x) => s + x, 0));
  let common = 0;
  if (targets.length > 0) common = totals.reduce((s, x) => s + x, 0) / targets.length;
  else {
    // No view meets the query: the mean view total, spread uniformly.
    for (const view of views) for (const x of view.cells) common += x;
    common /= views.length;
  }

  const table = createTable(query, cardinalities, { unit });
  if (maximal.length === 1 && maximal[0]!.mask === full && k > 0) {
    table.cells.set(targets[0]!.cells);
    return {
      table,
      method: "projection",
      constraints: [query],
      iterations: 0,
      maxResidual: maxDisagreement,
      converged: true,
      stalled: false,
      totalRestored: false,
      maxDisagreement,
      clippedMass: 0,
      inconsistent: maxDisagreement > tolerance * Math.abs(common),
    };
  }

  // Disagreement between constraints on their shared attributes (the empty set: totals).
  for (const t of totals) maxDisagreement = Math.max(maxDisagreement, Math.abs(t - common));
  for (let i = 0; i < targets.length; i++) {
    for (let j = i + 1; j < targets.length; j++) {
      const shared = maximal[i]!.mask & maximal[j]!.mask;
      if (shared === 0) continue;
      const sharedPositions = positionsOf(shared);
      const a = projectOnto(targets[i]!, maximal[i]!.mask, sharedPositions);
      const b = projectOnto(targets[j]!, maximal[j]!.mask, sharedPositions);
      for (let c = 0; c < a.length; c++) maxDisagreement = Math.max(maxDisagreement, Math.abs(a[c]! - b[c]!));
    }
  }

  if (targets.length === 0) {
    table.cells.fill(common / table.cells.length);
    return {
      table,
      method: "ipf",
      constraints: [],
      iterations: 0,
      maxResidual: 0,
      converged: true,
      stalled: false,
      totalRestored: false,
      maxDisagreement,
      clippedMass: 0,
      inconsistent: maxDisagreement > tolerance * Math.abs(common),
    };
  }

  // Non-negative targets with the common total.
  let clippedMass = 0;
  const fitted = targets.map((target, i) => {
    let negative = false;
    for (const x of target.cells) if (x < 0) negative = true;
    if (!negative && Math.abs(totals[i]! - common) <= 1e-15 * Math.abs(common)) return target;
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
    return target;
  });
  const maps = maximal.map((g) => projectionMap(cardinalities, positionsOf(g.mask)));
  const fit = runIpf(table, fitted, maps, Math.max(common, 0), tolerance, maxIterations);
  return {
    ...fit,
    method: "ipf",
    constraints: fitted.map((t) => t.attributes),
    maxDisagreement,
    clippedMass,
    inconsistent: fit.stalled || fit.totalRestored || maxDisagreement > tolerance * Math.abs(common),
  };
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
