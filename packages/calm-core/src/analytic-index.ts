/**
 * The analytic interval's per-release index: every view's noise factors and its
 * 1-way projections, summed per attribute and view size (see `AnalyticIndex`).
 */
import { covarianceFactorsInto, type ViewNoiseInput } from "./view-covariance.js";

/** Row-major strides of mixed-radix cells (first attribute most significant). */
export function stridesOf(cardinalities: readonly number[]): number[] {
  const strides = new Array<number>(cardinalities.length);
  let size = 1;
  for (let i = cardinalities.length - 1; i >= 0; i--) {
    strides[i] = size;
    size *= cardinalities[i]!;
  }
  return strides;
}

/** Sums over a set of views of their 1-way projections on one attribute (z, covariance) and of their totals. */
export interface OneWaySums {
  size: number;
  /** The summed projection z (c values), then its dense c x c covariance. */
  zc: Float64Array;
  total: number;
  totalVariance: number;
}

/**
 * Per release (per list of view inputs), what every analytic query reads, in flat
 * typed arrays (views concatenated): each view's unbiased cells, its covariance
 * factors (Cov(f^_V) = diag(s) - a a^T, {@link estimateCovariance}), its total and
 * the total's variance, per (view, attribute) slot the stride, cardinality and the
 * 1-way projection (z, s, a on that attribute), the views holding each attribute
 * (ascending), and per attribute and view size the sums of the 1-way projections.
 * Built once per list in O(sum of view cells * l).
 */
export interface AnalyticIndex {
  cellStart: Int32Array;
  raw: Float64Array;
  diag: Float64Array;
  rank: Float64Array;
  size: Int32Array;
  total: Float64Array;
  totalVariance: Float64Array;
  slotStart: Int32Array;
  slotAttribute: Int32Array;
  slotStride: Int32Array;
  slotCard: Int32Array;
  /** Start of the slot's 1-way projection in oneZ / oneDiag / oneRank. */
  slotValues: Int32Array;
  oneZ: Float64Array;
  oneDiag: Float64Array;
  oneRank: Float64Array;
  /** The views holding attribute a are holders[holderStart[a] .. holderStart[a + 1]), ascending. */
  holderStart: Int32Array;
  holders: Int32Array;
  attributeBound: number;
  /** Per view size: sum of the views' totals and of their variances. */
  bySize: Map<number, { total: number; totalVariance: number }>;
  /** Per attribute: per view size, the {@link OneWaySums} of the views holding it. */
  oneWay: OneWaySums[][];
  /** Per attribute a: sum of 1/|V| over the views holding a. */
  attributeWeight: Float64Array;
  /** sum_V 1/|V| (W of the empty block). */
  weight: number;
  /** Scratch: per view, the last query that met it (dedupes the pairs' merges). */
  stamp: Int32Array;
  round: number;
  /** Scratch: per attribute, its position in the current query (-1 when absent). */
  positionOf: Int32Array;
  /** Scratch of a query's group sums and dense products (grown when a query needs more). */
  arena: Float64Array;
}

const indexes = new WeakMap<readonly ViewNoiseInput[], AnalyticIndex>();

/** {@link AnalyticIndex} of a view list, built once per list object. */
export function indexOf(views: readonly ViewNoiseInput[]): AnalyticIndex {
  const cached = indexes.get(views);
  if (cached) return cached;
  const m = views.length;
  const cellStart = new Int32Array(m + 1);
  const slotStart = new Int32Array(m + 1);
  let attributeBound = 0;
  let slotValueCount = 0;
  let widestView = 0;
  for (let v = 0; v < m; v++) {
    const view = views[v]!;
    cellStart[v + 1] = cellStart[v]! + view.raw.length;
    slotStart[v + 1] = slotStart[v]! + view.attributes.length;
    widestView = Math.max(widestView, view.raw.length);
    for (let j = 0; j < view.attributes.length; j++) {
      attributeBound = Math.max(attributeBound, view.attributes[j]! + 1);
      slotValueCount += view.cardinalities[j]!;
    }
  }
  const cells = cellStart[m]!;
  const slots = slotStart[m]!;
  const holderStart = new Int32Array(attributeBound + 1);
  for (const view of views) for (const a of view.attributes) holderStart[a + 1]!++;
  for (let a = 0; a < attributeBound; a++) holderStart[a + 1]! += holderStart[a]!;
  const holderNext = holderStart.slice(0, attributeBound);
  const index: AnalyticIndex = {
    cellStart,
    raw: new Float64Array(cells),
    diag: new Float64Array(cells),
    rank: new Float64Array(cells),
    size: new Int32Array(m),
    total: new Float64Array(m),
    totalVariance: new Float64Array(m),
    slotStart,
    slotAttribute: new Int32Array(slots),
    slotStride: new Int32Array(slots),
    slotCard: new Int32Array(slots),
    slotValues: new Int32Array(slots),
    oneZ: new Float64Array(slotValueCount),
    oneDiag: new Float64Array(slotValueCount),
    oneRank: new Float64Array(slotValueCount),
    holderStart,
    holders: new Int32Array(slots),
    attributeBound,
    bySize: new Map(),
    oneWay: Array.from({ length: attributeBound }, () => []),
    attributeWeight: new Float64Array(attributeBound),
    weight: 0,
    stamp: new Int32Array(m),
    round: 0,
    positionOf: new Int32Array(attributeBound).fill(-1),
    arena: new Float64Array(Math.max(1024, widestView)),
  };
  // One call per view (a small hot function: optimised after a few views, not once per release).
  let valueAt = 0;
  for (let v = 0; v < m; v++) valueAt = indexView(index, views[v]!, v, valueAt, holderNext);
  indexes.set(views, index);
  return index;
}

/**
 * Fills view v's part of `index` (its slots' 1-way projections from `valueAt` on,
 * its place in the holder lists at `holderNext`) and adds it to the per-size and
 * per-(attribute, size) sums; returns the
 * next free 1-way position. Uses `index.arena` as scratch for the plug-in
 * fractions. O(|V| l).
 */
function indexView(
  index: AnalyticIndex,
  view: ViewNoiseInput,
  v: number,
  valueAt: number,
  holderNext: Int32Array,
): number {
  const { raw, diag, rank, oneZ, oneDiag, oneRank } = index;
  const start = index.cellStart[v]!;
  const n = view.raw.length;
  index.size[v] = n;
  const estimate = view.raw;
  for (let u = 0; u < n; u++) raw[start + u] = estimate[u]!;
  // The plug-in: the released view clipped at 0 and normalised (uniform when nothing is left).
  const fitted = index.arena;
  let mass = 0;
  for (let u = 0; u < n; u++) {
    const x = Math.max(view.released[u]!, 0);
    fitted[u] = x;
    mass += x;
  }
  if (mass > 0) for (let u = 0; u < n; u++) fitted[u]! /= mass;
  else fitted.fill(1 / n, 0, n);
  covarianceFactorsInto(fitted, n, view.reports, view.oracle, diag, rank, start);
  let t = 0;
  let s = 0;
  let r = 0;
  for (let u = start; u < start + n; u++) {
    t += raw[u]!;
    s += diag[u]!;
    r += rank[u]!;
  }
  const variance = s - r * r;
  index.total[v] = t;
  index.totalVariance[v] = variance;
  index.weight += 1 / n;
  const sums = index.bySize.get(n);
  if (sums) {
    sums.total += t;
    sums.totalVariance += variance;
  } else index.bySize.set(n, { total: t, totalVariance: variance });
  let stride = n;
  const attributes = view.attributes;
  for (let j = 0; j < attributes.length; j++) {
    const slot = index.slotStart[v]! + j;
    const a = attributes[j]!;
    const c = view.cardinalities[j]!;
    stride /= c;
    index.slotAttribute[slot] = a;
    index.slotStride[slot] = stride;
    index.slotCard[slot] = c;
    index.slotValues[slot] = valueAt;
    for (let u = 0; u < n; u++) {
      const x = valueAt + (((u / stride) | 0) % c);
      oneZ[x]! += raw[start + u]!;
      oneDiag[x]! += diag[start + u]!;
      oneRank[x]! += rank[start + u]!;
    }
    index.attributeWeight[a]! += 1 / n;
    const list = index.oneWay[a]!;
    let into: OneWaySums | undefined;
    for (const e of list) if (e.size === n) into = e;
    if (!into) {
      into = { size: n, zc: new Float64Array(c + c * c), total: 0, totalVariance: 0 };
      list.push(into);
    }
    addProjection(into.zc, 0, oneZ, valueAt, oneDiag, valueAt, oneRank, valueAt, c, 1);
    into.total += t;
    into.totalVariance += variance;
    valueAt += c;
    index.holders[holderNext[a]!++] = v;
  }
  return valueAt;
}

/**
 * Adds sign * (z, diag(s) - a a^T) of a projection of length c (z, s, a read from
 * `zs`, `ss`, `as` at their offsets) to `target`: z at `at`, the dense c x c
 * covariance right after it. O(c^2).
 */
export function addProjection(
  target: Float64Array,
  at: number,
  zs: Float64Array,
  zAt: number,
  ss: Float64Array,
  sAt: number,
  as: Float64Array,
  aAt: number,
  c: number,
  sign: number,
): void {
  const covAt = at + c;
  for (let b = 0; b < c; b++) {
    target[at + b]! += sign * zs[zAt + b]!;
    const ab = sign * as[aAt + b]!;
    const row = covAt + b * c;
    target[row + b]! += sign * ss[sAt + b]!;
    for (let e = 0; e < c; e++) target[row + e]! -= ab * as[aAt + e]!;
  }
}
