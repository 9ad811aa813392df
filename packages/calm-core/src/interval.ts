import type { FrequencyOracle } from "@calm-ldp/frequency-oracles";
import { type MarginalTable, sumDeviationTransform } from "@calm-ldp/marginal-algebra";

/**
 * How an interval was obtained:
 * - "analytic": estimate -+ z SE from the oracles' variance propagated through
 *   consistency (a view covers the query; the answer is linear in the counts);
 * - "bootstrap": parametric bootstrap of the release (only on covered queries:
 *   it sees the noise, not the maximum-entropy model's bias);
 * - "bounds": a conservative interval for a maximum-entropy answer, from the
 *   Fréchet bounds the true cell obeys given the covered parts' marginals, each
 *   widened by its noise (`boundInterval`); sound whatever the true table, wider.
 */
export type IntervalMethod = "analytic" | "bootstrap" | "bounds";

/** Options of a CALM query with an interval (`synopsis.query(attributes, { interval: 0.95 })`). */
export interface CalmIntervalOptions {
  /** Confidence level of the two-sided interval, in (0, 1) (e.g. 0.95). */
  interval: number;
  /**
   * "auto" (default): analytic when a view covers the query, bounds when the
   * answer comes from maximum entropy; "analytic" and "bootstrap" (covered
   * queries only: on a maximum-entropy answer they would carry the noise but not
   * the model's bias, a false level, so they are refused) or "bounds" force one path.
   */
  intervalMethod?: "auto" | IntervalMethod;
  /** Bootstrap replicates B (default 200). */
  replicates?: number;
  /** Seed of the bootstrap's random source (default 0; results are reproducible). */
  seed?: number;
  /** Also return the full |A| x |A| covariance of `center` (default false; O(|A|^2) memory). */
  covariance?: boolean;
}

/**
 * A marginal table (the released answer, fractions) with a confidence interval
 * for every cell's true population fraction.
 */
export interface CalmIntervalTable extends MarginalTable {
  /** The confidence level asked for. */
  readonly level: number;
  /** Lower bound per cell (clipped to [0, 1]; a true fraction lies there). */
  readonly lower: Float64Array;
  /** Upper bound per cell (clipped to [0, 1]). */
  readonly upper: Float64Array;
  /**
   * Standard error per cell (analytic: of `center`; bootstrap: of the replicates;
   * bounds: NaN, the interval is a bound and not an estimate -+ z SE).
   */
  readonly standardError: Float64Array;
  /** Which path produced the interval. */
  readonly intervalMethod: IntervalMethod;
  /**
   * The point the interval is built around: analytic, the linear (unbiased,
   * consistent, before non-negativity) estimate; bootstrap and bounds, the released cells.
   */
  readonly center: Float64Array;
  /** Bootstrap replicates used (0 on the analytic path). */
  readonly replicates: number;
  /**
   * With `covariance: true`: the covariance of `center` (analytic) or of the
   * replicates (bootstrap), row-major |A| x |A|.
   */
  readonly covariance?: Float64Array;
}

/** What the analytic path needs of one view. @internal */
export interface ViewNoiseInput {
  readonly attributes: readonly number[];
  readonly cardinalities: readonly number[];
  /** The oracle's unbiased estimate (fractions). */
  readonly raw: Float64Array;
  /** The released view (after consistency and non-negativity); clipped at 0 and normalised, the plug-in fractions of the variance. */
  readonly released: Float64Array;
  /** Reports in the view's group, N_V. */
  readonly reports: number;
  readonly oracle: FrequencyOracle;
}

/**
 * Covariance of one view's unbiased estimate f^ (fractions over its cells) as
 * diag(s) - sum_r a_r a_r^T, over both the oracle's noise and which users form
 * the group (a random part of the population), with N = N_V reports and f =
 * plug-in fractions:
 * - GRR: each user of a random group reports i.i.d. with law pi = q + (p - q) f,
 *   so the support counts are Multinomial(N, pi) and
 *   Cov(f^) = (diag(pi) - pi pi^T) / (N (p - q)^2) (sampling included);
 * - unary and hashing oracles (supports independent per cell given the users, as
 *   in `expectedQuerySse`): noise s_u = [f_u p(1-p) + (1-f_u) q(1-q)] / (N (p-q)^2)
 *   plus the group's sampling (diag(f) - f f^T) / N (together: the i.i.d. law,
 *   Var = pi_u (1 - pi_u) / (N (p-q)^2), Cov = -f_u f_w / N).
 * The groups' sampling errors sum to zero across a partition, which
 * {@link analyticAnswer} accounts for once per query (the -Sigma_A / n term).
 * O(cells).
 */
export function estimateCovariance(view: {
  /** Plug-in fractions (non-negative, summing to 1). */
  fitted: Float64Array;
  reports: number;
  oracle: FrequencyOracle;
}): {
  diag: Float64Array;
  rank1: Float64Array[];
} {
  const cells = view.fitted.length;
  const diag = new Float64Array(cells);
  if (view.reports === 0) return { diag, rank1: [] };
  const a = new Float64Array(cells);
  covarianceFactorsInto(view.fitted, cells, view.reports, view.oracle, diag, a, 0);
  return { diag, rank1: [a] };
}

/**
 * {@link estimateCovariance} of plug-in fractions f[0..cells) written into `diag`
 * and `rank` (its one rank-1 factor a: Cov = diag(s) - a a^T) from `offset` on;
 * nothing when N = 0. O(cells).
 */
function covarianceFactorsInto(
  f: Float64Array,
  cells: number,
  N: number,
  oracle: FrequencyOracle,
  diag: Float64Array,
  rank: Float64Array,
  offset: number,
): void {
  const { p, q } = oracle;
  if (N === 0) return;
  const scale = N * (p - q) ** 2;
  const mechanism = oracle.mechanism;
  if (mechanism === "grr" || mechanism === "rr") {
    // Users of a random group report i.i.d. with law pi: the multinomial already holds the group's sampling.
    const root = Math.sqrt(scale);
    for (let u = 0; u < cells; u++) {
      const pi = q + (p - q) * f[u]!;
      diag[offset + u] = pi / scale;
      rank[offset + u] = pi / root;
    }
    return;
  }
  const noiseIn = p * (1 - p);
  const noiseOut = q * (1 - q);
  const root = Math.sqrt(1 / N);
  for (let u = 0; u < cells; u++) {
    const fu = f[u]!;
    diag[offset + u] = (fu * noiseIn + (1 - fu) * noiseOut) / scale + fu / N;
    rank[offset + u] = fu * root;
  }
}

/** Row-major strides of mixed-radix cells (first attribute most significant). */
function stridesOf(cardinalities: readonly number[]): number[] {
  const strides = new Array<number>(cardinalities.length);
  let size = 1;
  for (let i = cardinalities.length - 1; i >= 0; i--) {
    strides[i] = size;
    size *= cardinalities[i]!;
  }
  return strides;
}

/** Sums over a set of views of their 1-way projections on one attribute (z, covariance) and of their totals. */
interface OneWaySums {
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
interface AnalyticIndex {
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
function indexOf(views: readonly ViewNoiseInput[]): AnalyticIndex {
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
function addProjection(
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

const transforms = new Map<string, Float64Array>();

/**
 * The matrix of marginal-algebra's `sumDeviationTransform` (forward or inverse) for a shape, row-major
 * D x D (entry [i, j] = output i of input e_j), cached per shape. O(D^2 k) once.
 */
function transformMatrix(cardinalities: readonly number[], inverse: boolean): Float64Array {
  const key = `${inverse ? "i" : "f"}${cardinalities.join(",")}`;
  let matrix = transforms.get(key);
  if (!matrix) {
    const size = cardinalities.reduce((s, c) => s * c, 1);
    matrix = new Float64Array(size * size);
    const unit = new Float64Array(size);
    for (let j = 0; j < size; j++) {
      unit.fill(0);
      unit[j] = 1;
      sumDeviationTransform(unit, cardinalities, inverse);
      for (let i = 0; i < size; i++) matrix[i * size + j] = unit[i]!;
    }
    if (transforms.size > 256) transforms.clear();
    transforms.set(key, matrix);
  }
  return matrix;
}

/** The linear answer and its per-cell variance. @internal */
export interface AnalyticResult {
  center: Float64Array;
  variance: Float64Array;
  /** Row-major |A| x |A| covariance, when asked. */
  covariance?: Float64Array;
}

/**
 * Analytic covariance of CALM's consistent answer to a query A.
 *
 * The consistency step (../../../docs/algorithms.md#consistency, `postProcessViews` without
 * non-negativity) is linear: in the sum/deviation coordinates every coefficient
 * block beta is replaced by the average of that block over the views V containing
 * beta, weighted w_V = 1/|V|. A covered query A is read off any covering view, so
 *   answer_A = inv_A( sum_{beta ⊆ A} sum_{V ⊇ beta} (w_V / W_beta) h_beta(P_{A∩V} f^_V) ),
 * W_beta = sum_{V ⊇ beta} w_V, h_beta = the beta-block of the transform of V's
 * marginal on A∩V. So answer_A = sum_V G_V z_V with z_V = P_{A∩V} f^_V and G_V a
 * fixed |A| x |A∩V| matrix. The oracles' noise is independent across groups;
 * the groups' sampling errors e_V (group marginal minus population marginal) of
 * a random partition have Cov(e_V, e_W) = Sigma (delta_VW / N_V - 1 / n), Sigma =
 * diag(f) - f f^T, and the consistent answer of exact marginals is the marginal
 * itself (sum_V G_V P_{A∩V} = I on A-tables), so
 *   Var(answer_a) = sum_V (G_V Cov(z_V) G_V^T)_{aa} - f_a (1 - f_a) / n,
 * Cov(z_V) = P Cov(f^_V) P^T from {@link estimateCovariance}, f_a = `fitted` (the
 * released answer). Views with the same
 * intersection with A and the same size share G, so their covariances are summed
 * first. The plug-in f is the released (non-negative) view. Cost: once per
 * release, the index (O(sum_V |V| l), see `AnalyticIndex`: the views meeting A in
 * one attribute enter through per-(attribute, size) sums, those meeting it in none
 * through per-size totals); per query, O(|V| |B|) for each view sharing two or
 * more attributes with A (merging the index's per-attribute holder lists), plus
 * O(g |A| |B| (|A| + |B|)) for g distinct (A∩V, |V|) groups, B = A∩V; no pass
 * over the reports.
 */
export function analyticAnswer(
  views: readonly ViewNoiseInput[],
  query: readonly number[],
  queryCardinalities: readonly number[],
  population: number,
  fitted: Float64Array,
  withCovariance = false,
): AnalyticResult {
  const k = query.length;
  const sizeA = queryCardinalities.reduce((s, c) => s * c, 1);
  const stridesA = stridesOf(queryCardinalities);
  const index = indexOf(views);
  const { positionOf, stamp, attributeBound } = index;
  const round = ++index.round;
  // Views meeting the query in one attribute enter through the per-(attribute, size) sums of
  // the index; views meeting it in none through the per-size sums of their totals; only views
  // meeting it in two or more attributes (merges of the holder lists of its pairs: few) are projected
  // here, and taken out of the sums they were counted in.
  const weightOf = new Float64Array(1 << k);
  weightOf[0] = index.weight;
  for (let p = 0; p < k; p++) {
    const a = query[p]!;
    if (a < attributeBound) {
      positionOf[a] = p;
      weightOf[1 << p] = index.attributeWeight[a]!;
    }
  }
  const multiViews: number[] = [];
  const multiMasks: number[] = [];
  for (let p = 0; p < k; p++)
    for (let p2 = p + 1; p2 < k; p2++) {
      const a = query[p]!;
      const b = query[p2]!;
      if (a >= attributeBound || b >= attributeBound) continue;
      // The views holding both: merge of the two ascending holder lists.
      let i = index.holderStart[a]!;
      const iEnd = index.holderStart[a + 1]!;
      let j = index.holderStart[b]!;
      const jEnd = index.holderStart[b + 1]!;
      while (i < iEnd && j < jEnd) {
        const v = index.holders[i]!;
        const w = index.holders[j]!;
        if (v < w) {
          i++;
          continue;
        }
        if (w < v) {
          j++;
          continue;
        }
        i++;
        j++;
        if (stamp[v] === round) continue;
        stamp[v] = round;
        let mask = 0;
        for (let slot = index.slotStart[v]!; slot < index.slotStart[v + 1]!; slot++) {
          const at = positionOf[index.slotAttribute[slot]!]!;
          if (at >= 0) mask |= 1 << at;
        }
        multiViews.push(v);
        multiMasks.push(mask);
      }
    }
  for (let p = 0; p < k; p++) if (query[p]! < attributeBound) positionOf[query[p]!] = -1;
  // Contributions grouped by (mask, view size): same G. Each group's z (|B|) and dense
  // covariance (|B|^2) live in one scratch array (the index's arena, reused across queries).
  const groupMask: number[] = [];
  const groupSize: number[] = [];
  const groupAt: number[] = [];
  let top = 0;
  let widest = 1;
  const groupOf = (mask: number, size: number): number => {
    for (let g = 0; g < groupMask.length; g++) if (groupMask[g] === mask && groupSize[g] === size) return g;
    let sizeB = 1;
    for (let p = 0; p < k; p++) if ((mask >>> p) & 1) sizeB *= queryCardinalities[p]!;
    groupMask.push(mask);
    groupSize.push(size);
    groupAt.push(top);
    top += sizeB + sizeB * sizeB;
    if (sizeB > widest) widest = sizeB;
    return groupMask.length - 1;
  };
  // First pass: the groups (and the arena's size); second pass: their sums.
  for (const size of index.bySize.keys()) groupOf(0, size);
  for (let p = 0; p < k; p++)
    if (query[p]! < attributeBound) for (const sums of index.oneWay[query[p]!]!) groupOf(1 << p, sums.size);
  const multiGroup = multiViews.map((v, i) => groupOf(multiMasks[i]!, index.size[v]!));
  // Scratch after the groups: G (|A| x |B|), S G^T (|B| x |A|), and a view's projection (3 |B|).
  const gAt = top;
  const sgAt = gAt + sizeA * widest;
  const projAt = sgAt + sizeA * widest;
  const needed = projAt + 3 * widest;
  if (index.arena.length < needed) index.arena = new Float64Array(Math.max(needed, 2 * index.arena.length));
  const arena = index.arena;
  arena.fill(0, 0, needed);
  const lengthOf = (g: number): number => {
    let sizeB = 1;
    for (let p = 0; p < k; p++) if ((groupMask[g]! >>> p) & 1) sizeB *= queryCardinalities[p]!;
    return sizeB;
  };
  for (const [size, sums] of index.bySize) {
    const at = groupAt[groupOf(0, size)]!;
    arena[at]! += sums.total;
    arena[at + 1]! += sums.totalVariance;
  }
  for (let p = 0; p < k; p++) {
    const a = query[p]!;
    if (a >= attributeBound) continue;
    for (const sums of index.oneWay[a]!) {
      const empty = groupAt[groupOf(0, sums.size)]!;
      arena[empty]! -= sums.total;
      arena[empty + 1]! -= sums.totalVariance;
      const at = groupAt[groupOf(1 << p, sums.size)]!;
      for (let i = 0; i < sums.zc.length; i++) arena[at + i]! += sums.zc[i]!;
    }
  }
  for (let i = 0; i < multiViews.length; i++) {
    const v = multiViews[i]!;
    const mask = multiMasks[i]!;
    const size = index.size[v]!;
    const w = 1 / size;
    let shared = 0;
    for (let beta = mask; beta !== 0; beta = (beta - 1) & mask) {
      if ((beta & (beta - 1)) !== 0) weightOf[beta]! += w;
      else shared++;
    }
    // Counted once in every per-attribute sum it belongs to: undo, then add its own projection.
    const empty = groupAt[groupOf(0, size)]!;
    arena[empty]! += (shared - 1) * index.total[v]!;
    arena[empty + 1]! += (shared - 1) * index.totalVariance[v]!;
    // The view's slots of the shared attributes, in query order.
    const slotsB: number[] = [];
    for (let p = 0; p < k; p++) {
      if (((mask >>> p) & 1) === 0) continue;
      let slot = index.slotStart[v]!;
      while (index.slotAttribute[slot] !== query[p]) slot++;
      slotsB.push(slot);
      const c = index.slotCard[slot]!;
      const at = groupAt[groupOf(1 << p, size)]!;
      const from = index.slotValues[slot]!;
      addProjection(arena, at, index.oneZ, from, index.oneDiag, from, index.oneRank, from, c, -1);
    }
    // z, s, a of the view projected on B = the shared attributes: O(|V| |B|), then dense O(|B|^2).
    const sizeB = lengthOf(multiGroup[i]!);
    arena.fill(0, projAt, projAt + 3 * sizeB);
    const start = index.cellStart[v]!;
    for (let u = 0; u < size; u++) {
      let b = 0;
      for (const slot of slotsB)
        b = b * index.slotCard[slot]! + (Math.floor(u / index.slotStride[slot]!) % index.slotCard[slot]!);
      b += projAt;
      arena[b]! += index.raw[start + u]!;
      arena[b + sizeB]! += index.diag[start + u]!;
      arena[b + 2 * sizeB]! += index.rank[start + u]!;
    }
    addProjection(
      arena,
      groupAt[multiGroup[i]!]!,
      arena,
      projAt,
      arena,
      projAt + sizeB,
      arena,
      projAt + 2 * sizeB,
      sizeB,
      1,
    );
  }
  const center = new Float64Array(sizeA);
  const variance = new Float64Array(sizeA);
  const covariance = withCovariance ? new Float64Array(sizeA * sizeA) : undefined;
  const inv = transformMatrix(queryCardinalities, true);
  for (let g = 0; g < groupMask.length; g++) {
    const bPositions: number[] = [];
    for (let p = 0; p < k; p++) if ((groupMask[g]! >>> p) & 1) bPositions.push(p);
    const bCards = bPositions.map((p) => queryCardinalities[p]!);
    const sizeB = lengthOf(g);
    const zAt = groupAt[g]!;
    const covAt = zAt + sizeB;
    const bStrides = stridesOf(bCards);
    const w = 1 / groupSize[g]!;
    // G = Inv_A S F_B as an |A| x |B| matrix (column-major): F_B the transform of B's cells,
    // S moves B's coefficient j to A's coefficient target(j) scaled by w / W_support(j),
    // Inv_A the inverse transform of A (both matrices cached per shape).
    const F = transformMatrix(bCards, false);
    arena.fill(0, gAt, gAt + 2 * sizeA * widest);
    for (let j = 0; j < sizeB; j++) {
      let support = 0;
      let target = 0;
      for (let i = 0; i < bPositions.length; i++) {
        const p = bPositions[i]!;
        const digit = Math.floor(j / bStrides[i]!) % bCards[i]!;
        if (digit !== 0) support |= 1 << p;
        target += digit * stridesA[p]!;
      }
      const scale = w / weightOf[support]!;
      for (let b = 0; b < sizeB; b++) {
        const f = F[j * sizeB + b]! * scale;
        if (f === 0) continue;
        const col = gAt + b * sizeA;
        for (let a = 0; a < sizeA; a++) arena[col + a]! += inv[a * sizeA + target]! * f;
      }
    }
    // S G^T (|B| x |A|), then mean = G z and (G S G^T) on the diagonal (or in full).
    for (let b = 0; b < sizeB; b++)
      for (let c = 0; c < sizeB; c++) {
        const s = arena[covAt + b * sizeB + c]!;
        if (s === 0) continue;
        const row = sgAt + b * sizeA;
        const col = gAt + c * sizeA;
        for (let a = 0; a < sizeA; a++) arena[row + a]! += s * arena[col + a]!;
      }
    for (let b = 0; b < sizeB; b++) {
      const zb = arena[zAt + b]!;
      const col = gAt + b * sizeA;
      const row = sgAt + b * sizeA;
      for (let a = 0; a < sizeA; a++) {
        const gab = arena[col + a]!;
        center[a]! += gab * zb;
        variance[a]! += gab * arena[row + a]!;
      }
    }
    if (covariance)
      for (let a = 0; a < sizeA; a++)
        for (let b = 0; b < sizeB; b++) {
          const gab = arena[gAt + b * sizeA + a]!;
          if (gab === 0) continue;
          const row = sgAt + b * sizeA;
          for (let a2 = 0; a2 < sizeA; a2++) covariance[a * sizeA + a2]! += gab * arena[row + a2]!;
        }
  }
  let total = 0;
  for (let a = 0; a < sizeA; a++) total += Math.max(0, fitted[a]!);
  const share = (a: number) => (total > 0 ? Math.max(0, fitted[a]!) / total : 1 / sizeA);
  for (let a = 0; a < sizeA; a++) {
    const f = share(a);
    if (population > 0) variance[a]! -= (f * (1 - f)) / population;
    if (variance[a]! < 0) variance[a] = 0;
  }
  if (covariance && population > 0)
    for (let a = 0; a < sizeA; a++)
      for (let a2 = 0; a2 < sizeA; a2++)
        covariance[a * sizeA + a2]! -= ((a === a2 ? share(a) : 0) - share(a) * share(a2)) / population;
  return covariance ? { center, variance, covariance } : { center, variance };
}

/** The q-quantile (0 <= q <= 1) of sorted values, linear between order statistics. */
function quantileOfSorted(sorted: Float64Array, q: number): number {
  const at = q * (sorted.length - 1);
  const low = Math.floor(at);
  const high = Math.min(sorted.length - 1, low + 1);
  return sorted[low]! + (at - low) * (sorted[high]! - sorted[low]!);
}

/**
 * Basic (reflected) parametric-bootstrap interval per cell: with the released
 * answer t and replicate answers t*_1..t*_B drawn from the fitted model,
 * [2t - Q(1 - alpha/2), 2t - Q(alpha/2)] (Q = quantile of the t*), which removes
 * the bias that non-negativity and maximum entropy add when the model is right;
 * standard error = sd of the t*. Clipped to [0, 1]. O(B |A| log B).
 */
export function bootstrapBounds(
  released: Float64Array,
  replicates: readonly Float64Array[],
  level: number,
): { lower: Float64Array; upper: Float64Array; standardError: Float64Array } {
  const cells = released.length;
  const B = replicates.length;
  const lower = new Float64Array(cells);
  const upper = new Float64Array(cells);
  const standardError = new Float64Array(cells);
  const values = new Float64Array(B);
  const alpha = 1 - level;
  for (let a = 0; a < cells; a++) {
    let mean = 0;
    for (let b = 0; b < B; b++) {
      values[b] = replicates[b]![a]!;
      mean += values[b]!;
    }
    mean /= B;
    let ss = 0;
    for (let b = 0; b < B; b++) ss += (values[b]! - mean) ** 2;
    standardError[a] = Math.sqrt(ss / Math.max(1, B - 1));
    values.sort();
    const t = released[a]!;
    lower[a] = clip01(2 * t - quantileOfSorted(values, 1 - alpha / 2));
    upper[a] = clip01(2 * t - quantileOfSorted(values, alpha / 2));
  }
  return { lower, upper, standardError };
}

/**
 * The normal interval of every cell: `standardError = sqrt(max(0, variance))`,
 * `[center -+ z standardError]` clipped to [0, 1] (cells are fractions). O(cells).
 */
export function normalInterval(
  center: Float64Array,
  variance: ArrayLike<number>,
  z: number,
): { lower: Float64Array; upper: Float64Array; standardError: Float64Array } {
  const cells = center.length;
  const standardError = new Float64Array(cells);
  const lower = new Float64Array(cells);
  const upper = new Float64Array(cells);
  for (let a = 0; a < cells; a++) {
    standardError[a] = Math.sqrt(Math.max(0, variance[a]!));
    lower[a] = clip01(center[a]! - z * standardError[a]!);
    upper[a] = clip01(center[a]! + z * standardError[a]!);
  }
  return { lower, upper, standardError };
}

/** x clipped to [0, 1]. */
export function clip01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

/** Row-major sample covariance of replicate vectors (B >= 2). O(B |A|^2). */
export function replicateCovariance(replicates: readonly Float64Array[]): Float64Array {
  const B = replicates.length;
  const size = replicates[0]!.length;
  const mean = new Float64Array(size);
  for (const r of replicates) for (let a = 0; a < size; a++) mean[a]! += r[a]! / B;
  const out = new Float64Array(size * size);
  for (const r of replicates)
    for (let a = 0; a < size; a++) {
      const da = r[a]! - mean[a]!;
      for (let b = 0; b < size; b++) out[a * size + b]! += (da * (r[b]! - mean[b]!)) / (B - 1);
    }
  return out;
}
