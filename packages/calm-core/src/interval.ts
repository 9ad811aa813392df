import type { FrequencyOracle } from "@calm-ldp/frequency-oracles";
import type { MarginalTable } from "@calm-ldp/marginal-algebra";

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
  /** Plug-in fractions for the variance (non-negative, summing to 1). */
  readonly fitted: Float64Array;
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
export function estimateCovariance(view: Pick<ViewNoiseInput, "fitted" | "reports" | "oracle">): {
  diag: Float64Array;
  rank1: Float64Array[];
} {
  const { p, q } = view.oracle;
  const N = view.reports;
  const f = view.fitted;
  const cells = f.length;
  const diag = new Float64Array(cells);
  const rank1: Float64Array[] = [];
  if (N === 0) return { diag, rank1 };
  const scale = N * (p - q) ** 2;
  const mechanism = view.oracle.mechanism;
  if (mechanism === "grr" || mechanism === "rr") {
    const a = new Float64Array(cells);
    for (let u = 0; u < cells; u++) {
      const pi = q + (p - q) * f[u]!;
      diag[u] = pi / scale;
      a[u] = pi / Math.sqrt(scale);
    }
    rank1.push(a);
    // Users of a random group report i.i.d. with law pi: the multinomial already holds the group's sampling.
    return { diag, rank1 };
  }
  for (let u = 0; u < cells; u++) diag[u] = (f[u]! * p * (1 - p) + (1 - f[u]!) * q * (1 - q)) / scale;
  const a = new Float64Array(cells);
  const root = Math.sqrt(1 / N);
  for (let u = 0; u < cells; u++) {
    diag[u] += f[u]! / N;
    a[u] = f[u]! * root;
  }
  rank1.push(a);
  return { diag, rank1 };
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

/**
 * Per-axis sum/deviation transform (the coordinates of CALM's component
 * consistency): along each axis (x_0..x_{c-1}) -> (S, x_1 - S/c, .., x_{c-1} - S/c).
 * Coefficient j depends only on the marginal over the attributes with j_i >= 1
 * (its support). `inverse` undoes it. O(D k).
 */
function sumDeviation(cells: Float64Array, cardinalities: readonly number[], inverse: boolean): void {
  const strides = stridesOf(cardinalities);
  const size = cells.length;
  const axes = cardinalities.map((_, i) => i);
  if (inverse) axes.reverse();
  for (const i of axes) {
    const c = cardinalities[i]!;
    const s = strides[i]!;
    const block = s * c;
    for (let base = 0; base < size; base += block) {
      for (let offset = base; offset < base + s; offset++) {
        if (!inverse) {
          let sum = 0;
          for (let v = 0; v < c; v++) sum += cells[offset + v * s]!;
          const mean = sum / c;
          cells[offset] = sum;
          for (let v = 1; v < c; v++) cells[offset + v * s]! -= mean;
        } else {
          const mean = cells[offset]! / c;
          let deviations = 0;
          for (let v = 1; v < c; v++) {
            deviations += cells[offset + v * s]!;
            cells[offset + v * s]! += mean;
          }
          cells[offset] = mean - deviations;
        }
      }
    }
  }
}

/** Per view, what every query reuses: its covariance factors, strides, total and the total's variance. */
interface Prepared {
  diag: Float64Array;
  rank1: Float64Array[];
  strides: number[];
  total: number;
  totalVariance: number;
}

const prepared = new WeakMap<ViewNoiseInput, Prepared>();

/** {@link Prepared} of a view, computed once per view input object. O(cells). */
function preparedOf(view: ViewNoiseInput): Prepared {
  let out = prepared.get(view);
  if (!out) {
    const { diag, rank1 } = estimateCovariance(view);
    let total = 0;
    for (const x of view.raw) total += x;
    let totalVariance = 0;
    for (const x of diag) totalVariance += x;
    for (const a of rank1) {
      let sum = 0;
      for (const x of a) sum += x;
      totalVariance -= sum * sum;
    }
    out = { diag, rank1, strides: stridesOf(view.cardinalities), total, totalVariance };
    prepared.set(view, out);
  }
  return out;
}

/** Per view list, what every query reuses: views by attribute, and per view size the sums over all views. */
interface ViewIndex {
  byAttribute: Map<number, number[]>;
  /** Per attribute a, per view size: sums over the views containing a of their projections on a (and of their totals). */
  oneWay: Map<
    number,
    Map<number, { z: Float64Array; cov: Float64Array; empty: { z: Float64Array; cov: Float64Array } }>
  >;
  /** Per attribute a: sum of 1/|V| over the views containing a. */
  attributeWeight: Map<number, number>;
  /** Per view, its attributes as a bit mask (when every attribute is < 32). */
  bits: Uint32Array | undefined;
  bySize: Map<number, { z: Float64Array; cov: Float64Array }>;
  /** sum_V 1/|V| (W of the empty block). */
  weight: number;
}

const indexes = new WeakMap<readonly ViewNoiseInput[], ViewIndex>();

/** {@link ViewIndex} of a view list, built once per list object. O(sum of view cells). */
function indexOf(views: readonly ViewNoiseInput[]): ViewIndex {
  let index = indexes.get(views);
  if (!index) {
    const byAttribute = new Map<number, number[]>();
    const bySize = new Map<number, { z: Float64Array; cov: Float64Array }>();
    let weight = 0;
    const oneWay: ViewIndex["oneWay"] = new Map();
    const attributeWeight = new Map<number, number>();
    views.forEach((view, v) => {
      const size = view.raw.length;
      for (const a of view.attributes) {
        const list = byAttribute.get(a);
        if (list) list.push(v);
        else byAttribute.set(a, [v]);
        attributeWeight.set(a, (attributeWeight.get(a) ?? 0) + 1 / size);
        const projected = oneWayOf(view, a);
        let bySizeOfA = oneWay.get(a);
        if (!bySizeOfA) {
          bySizeOfA = new Map();
          oneWay.set(a, bySizeOfA);
        }
        let sums = bySizeOfA.get(size);
        if (!sums) {
          sums = {
            z: new Float64Array(projected.z.length),
            cov: new Float64Array(projected.cov.length),
            empty: { z: new Float64Array(1), cov: new Float64Array(1) },
          };
          bySizeOfA.set(size, sums);
        }
        for (let i = 0; i < projected.z.length; i++) sums.z[i] += projected.z[i]!;
        for (let i = 0; i < projected.cov.length; i++) sums.cov[i] += projected.cov[i]!;
        const prep = preparedOf(view);
        sums.empty.z[0] += prep.total;
        sums.empty.cov[0] += prep.totalVariance;
      }
      const prepared = preparedOf(view);
      const sums = bySize.get(view.raw.length) ?? { z: new Float64Array(1), cov: new Float64Array(1) };
      sums.z[0] += prepared.total;
      sums.cov[0] += prepared.totalVariance;
      bySize.set(view.raw.length, sums);
      weight += 1 / view.raw.length;
    });
    const narrow = views.every((view) => view.attributes.every((a) => a < 32));
    const bits = narrow
      ? Uint32Array.from(views, (view) => view.attributes.reduce((m, a) => (m | (1 << a)) >>> 0, 0))
      : undefined;
    index = { byAttribute, bySize, weight, oneWay, attributeWeight, bits };
    indexes.set(views, index);
  }
  return index;
}

/**
 * A view's unbiased estimate projected on `attributes` (a subset of its own,
 * ascending): z = P f^ and its covariance P Cov P^T (dense). O(|V| l + |B|^2).
 */
function projectOnto(
  view: ViewNoiseInput,
  attributes: readonly number[],
): { z: Float64Array; cov: Float64Array } {
  const prepared = preparedOf(view);
  const cards = attributes.map((a) => view.cardinalities[view.attributes.indexOf(a)]!);
  const sizeB = cards.reduce((s, c) => s * c, 1);
  const bStrides = stridesOf(cards);
  const axes: number[] = [];
  attributes.forEach((a, i) => {
    const j = view.attributes.indexOf(a);
    axes.push(prepared.strides[j]!, view.cardinalities[j]!, bStrides[i]!);
  });
  const z = new Float64Array(sizeB);
  const diagB = new Float64Array(sizeB);
  const rankB = prepared.rank1.map(() => new Float64Array(sizeB));
  for (let u = 0; u < view.raw.length; u++) {
    let b = 0;
    for (let x = 0; x < axes.length; x += 3) b += (Math.floor(u / axes[x]!) % axes[x + 1]!) * axes[x + 2]!;
    z[b] += view.raw[u]!;
    diagB[b] += prepared.diag[u]!;
    for (let r = 0; r < rankB.length; r++) rankB[r]![b] += prepared.rank1[r]![u]!;
  }
  const cov = new Float64Array(sizeB * sizeB);
  for (let b = 0; b < sizeB; b++) cov[b * sizeB + b] = diagB[b]!;
  for (const a of rankB)
    for (let b = 0; b < sizeB; b++) for (let c = 0; c < sizeB; c++) cov[b * sizeB + c] -= a[b]! * a[c]!;
  return { z, cov };
}

const oneWays = new WeakMap<ViewNoiseInput, Map<number, { z: Float64Array; cov: Float64Array }>>();

/** {@link projectOnto} one attribute, cached per view. */
function oneWayOf(view: ViewNoiseInput, attribute: number): { z: Float64Array; cov: Float64Array } {
  let cache = oneWays.get(view);
  if (!cache) {
    cache = new Map();
    oneWays.set(view, cache);
  }
  let out = cache.get(attribute);
  if (!out) {
    out = projectOnto(view, [attribute]);
    cache.set(attribute, out);
  }
  return out;
}

const transforms = new Map<string, Float64Array>();

/**
 * The matrix of {@link sumDeviation} (forward or inverse) for a shape, row-major
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
      sumDeviation(unit, cardinalities, inverse);
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
 * first. The plug-in f is the released (non-negative) view. Cost per query:
 * O(sum_V |V| l) to project, plus O(g |A| |B|^2) for g distinct (A∩V, |V|)
 * groups, B = A∩V; no pass over the reports.
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
  const position = new Map<number, number>();
  query.forEach((a, i) => {
    position.set(a, i);
  });
  const index = indexOf(views);
  // Views meeting the query in one attribute enter through per-(attribute, size) sums built
  // once per synopsis; views meeting it in none through per-size sums of their totals; only
  // views meeting it in two or more attributes (few) are projected here, and taken out of
  // the sums they were counted in.
  const weightOf = new Float64Array(1 << k);
  weightOf[0] = index.weight;
  const multi = new Map<number, number>();
  // With every attribute < 32, views are matched by their attribute bit masks (no map lookups).
  let queryBits = 0;
  for (const a of query) queryBits = a < 32 && queryBits !== -1 ? (queryBits | (1 << a)) >>> 0 : -1;
  query.forEach((a, p) => {
    weightOf[1 << p] = index.attributeWeight.get(a) ?? 0;
    for (const v of index.byAttribute.get(a) ?? []) {
      if (multi.has(v)) continue;
      if (queryBits !== -1 && index.bits !== undefined) {
        const shared = (index.bits[v]! & queryBits) >>> 0;
        if ((shared & (shared - 1)) === 0) continue; // one shared attribute: in the 1-way sums
      }
      let mask = 0;
      for (const b of views[v]!.attributes) {
        const q = position.get(b);
        if (q !== undefined) mask |= 1 << q;
      }
      if ((mask & (mask - 1)) !== 0) multi.set(v, mask);
    }
  });
  // Group views by (mask, size): same G.
  interface Group {
    mask: number;
    size: number;
    z: Float64Array;
    cov: Float64Array;
  }
  const groups = new Map<number, Group>();
  const groupOf = (mask: number, size: number, sizeB: number): Group => {
    const key = mask * 2 ** 32 + size;
    let group = groups.get(key);
    if (!group) {
      group = { mask, size, z: new Float64Array(sizeB), cov: new Float64Array(sizeB * sizeB) };
      groups.set(key, group);
    }
    return group;
  };
  const add = (group: Group, sums: { z: Float64Array; cov: Float64Array }, sign: number) => {
    for (let i = 0; i < sums.z.length; i++) group.z[i] += sign * sums.z[i]!;
    for (let i = 0; i < sums.cov.length; i++) group.cov[i] += sign * sums.cov[i]!;
  };
  for (const [size, sums] of index.bySize) add(groupOf(0, size, 1), sums, 1);
  query.forEach((a, p) => {
    for (const [size, sums] of index.oneWay.get(a) ?? []) {
      add(groupOf(0, size, 1), sums.empty, -1);
      add(groupOf(1 << p, size, queryCardinalities[p]!), sums, 1);
    }
  });
  for (const [v, mask] of multi) {
    const view = views[v]!;
    const size = view.raw.length;
    const w = 1 / size;
    let shared = 0;
    for (let beta = mask; beta !== 0; beta = (beta - 1) & mask) {
      if ((beta & (beta - 1)) !== 0) weightOf[beta] += w;
      else shared++;
    }
    const prepared = preparedOf(view);
    // Counted once in every per-attribute sum it belongs to: undo, then add its own projection.
    add(
      groupOf(0, size, 1),
      { z: Float64Array.of(prepared.total), cov: Float64Array.of(prepared.totalVariance) },
      shared - 1,
    );
    query.forEach((a, p) => {
      if ((mask >>> p) & 1) add(groupOf(1 << p, size, queryCardinalities[p]!), oneWayOf(view, a), -1);
    });
    const positions: number[] = [];
    for (let p = 0; p < k; p++) if ((mask >>> p) & 1) positions.push(p);
    const group = groupOf(
      mask,
      size,
      positions.reduce((s, p) => s * queryCardinalities[p]!, 1),
    );
    add(
      group,
      projectOnto(
        view,
        positions.map((p) => query[p]!),
      ),
      1,
    );
  }
  const center = new Float64Array(sizeA);
  const variance = new Float64Array(sizeA);
  const covariance = withCovariance ? new Float64Array(sizeA * sizeA) : undefined;
  for (const group of groups.values()) {
    const bPositions: number[] = [];
    for (let p = 0; p < k; p++) if ((group.mask >>> p) & 1) bPositions.push(p);
    const bCards = bPositions.map((p) => queryCardinalities[p]!);
    const sizeB = group.z.length;
    const bStrides = stridesOf(bCards);
    const w = 1 / group.size;
    // G = Inv_A S F_B as an |A| x |B| matrix (column-major): F_B the transform of B's cells,
    // S moves B's coefficient j to A's coefficient target(j) scaled by w / W_support(j),
    // Inv_A the inverse transform of A (both matrices cached per shape).
    const F = transformMatrix(bCards, false);
    const inv = transformMatrix(queryCardinalities, true);
    const G = new Float64Array(sizeA * sizeB);
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
        for (let a = 0; a < sizeA; a++) G[b * sizeA + a]! += inv[a * sizeA + target]! * f;
      }
    }
    for (let a = 0; a < sizeA; a++) {
      let mean = 0;
      let v = 0;
      for (let b = 0; b < sizeB; b++) {
        const gab = G[b * sizeA + a]!;
        mean += gab * group.z[b]!;
        if (gab === 0) continue;
        let row = 0;
        for (let c = 0; c < sizeB; c++) row += group.cov[b * sizeB + c]! * G[c * sizeA + a]!;
        v += gab * row;
      }
      center[a] += mean;
      variance[a] += v;
    }
    if (covariance) {
      // (G S G^T)_{a a'} = sum_b G[a,b] (S G^T)[b, a'].
      const sg = new Float64Array(sizeB * sizeA);
      for (let b = 0; b < sizeB; b++)
        for (let a = 0; a < sizeA; a++) {
          let row = 0;
          for (let c = 0; c < sizeB; c++) row += group.cov[b * sizeB + c]! * G[c * sizeA + a]!;
          sg[b * sizeA + a] = row;
        }
      for (let a = 0; a < sizeA; a++)
        for (let b = 0; b < sizeB; b++) {
          const gab = G[b * sizeA + a]!;
          if (gab === 0) continue;
          for (let a2 = 0; a2 < sizeA; a2++) covariance[a * sizeA + a2]! += gab * sg[b * sizeA + a2]!;
        }
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
