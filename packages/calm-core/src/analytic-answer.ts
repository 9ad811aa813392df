import { sumDeviationTransform } from "@calm-ldp/marginal-algebra";
import { type AnalyticIndex, addProjection, indexOf, stridesOf } from "./analytic-index.js";
import type { ViewNoiseInput } from "./view-covariance.js";

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
  const index = indexOf(views);
  const { weightOf, multiViews, multiMasks } = viewsMeetingQuery(index, query);
  // Contributions grouped by (mask, view size): same G. Each group's z (|B|) and dense
  // covariance (|B|^2) live in one scratch array (the index's arena, reused across queries).
  const groups = new QueryGroups(queryCardinalities);
  // First pass: the groups (and the arena's size); second pass: their sums.
  for (const size of index.bySize.keys()) groups.of(0, size);
  for (let p = 0; p < k; p++)
    if (query[p]! < index.attributeBound)
      for (const sums of index.oneWay[query[p]!]!) groups.of(1 << p, sums.size);
  const multiGroup = multiViews.map((v, i) => groups.of(multiMasks[i]!, index.size[v]!));
  // Scratch after the groups: G (|A| x |B|), S G^T (|B| x |A|), and a view's projection (3 |B|).
  const gAt = groups.top;
  const sgAt = gAt + sizeA * groups.widest;
  const projAt = sgAt + sizeA * groups.widest;
  const needed = projAt + 3 * groups.widest;
  if (index.arena.length < needed) index.arena = new Float64Array(Math.max(needed, 2 * index.arena.length));
  index.arena.fill(0, 0, needed);
  sumGroups(index, query, groups, weightOf, multiViews, multiMasks, multiGroup, projAt);
  const center = new Float64Array(sizeA);
  const variance = new Float64Array(sizeA);
  const covariance = withCovariance ? new Float64Array(sizeA * sizeA) : undefined;
  const context: GroupContext = {
    arena: index.arena,
    groups,
    weightOf,
    gAt,
    sgAt,
    stridesA: stridesOf(queryCardinalities),
    inv: transformMatrix(queryCardinalities, true),
    center,
    variance,
    covariance,
  };
  for (let g = 0; g < groups.mask.length; g++) addGroup(context, g);
  subtractSampling(fitted, population, variance, covariance);
  return covariance ? { center, variance, covariance } : { center, variance };
}

/**
 * The query's weights W_beta (beta a subset of A's positions, as a bit mask:
 * W_0 = sum_V 1/|V|, W_{a} = sum of 1/|V| over the views holding a; the larger
 * blocks are added by `sumGroups`) and the views meeting the query in two or more
 * attributes, with the mask of the positions they hold: merges of the ascending
 * holder lists of the query's pairs, each view once. O(k^2 holders + |V| per view found).
 */
function viewsMeetingQuery(
  index: AnalyticIndex,
  query: readonly number[],
): { weightOf: Float64Array; multiViews: number[]; multiMasks: number[] } {
  const k = query.length;
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
  return { weightOf, multiViews, multiMasks };
}

/**
 * The distinct (B = A∩V as a mask of A's positions, |V|) groups of a query, each
 * with its place in the arena: z (|B| values) then its dense |B| x |B| covariance.
 * `top` is the arena's end after them, `widest` the largest |B|.
 */
class QueryGroups {
  readonly mask: number[] = [];
  readonly size: number[] = [];
  readonly at: number[] = [];
  top = 0;
  widest = 1;
  constructor(readonly queryCardinalities: readonly number[]) {}

  /** The group of (mask, size), made on first sight. O(groups + k). */
  of(mask: number, size: number): number {
    for (let g = 0; g < this.mask.length; g++) if (this.mask[g] === mask && this.size[g] === size) return g;
    const sizeB = this.lengthOfMask(mask);
    this.mask.push(mask);
    this.size.push(size);
    this.at.push(this.top);
    this.top += sizeB + sizeB * sizeB;
    if (sizeB > this.widest) this.widest = sizeB;
    return this.mask.length - 1;
  }

  /** |B| of group g. O(k). */
  lengthOf(g: number): number {
    return this.lengthOfMask(this.mask[g]!);
  }

  private lengthOfMask(mask: number): number {
    let sizeB = 1;
    for (let p = 0; p < this.queryCardinalities.length; p++)
      if ((mask >>> p) & 1) sizeB *= this.queryCardinalities[p]!;
    return sizeB;
  }
}

/**
 * Every group's summed z and covariance in the arena: the per-size totals (B
 * empty), the per-(attribute, size) 1-way sums, then each view meeting the query
 * in two or more attributes taken out of the sums it was counted in and added
 * with its own projection on B (O(|V| |B|) + O(|B|^2)); adds those views' 1/|V|
 * to the weights of the blocks of two or more of their positions.
 */
function sumGroups(
  index: AnalyticIndex,
  query: readonly number[],
  groups: QueryGroups,
  weightOf: Float64Array,
  multiViews: readonly number[],
  multiMasks: readonly number[],
  multiGroup: readonly number[],
  projAt: number,
): void {
  const k = query.length;
  const { attributeBound, arena } = index;
  const groupAt = groups.at;
  for (const [size, sums] of index.bySize) {
    const at = groupAt[groups.of(0, size)]!;
    arena[at]! += sums.total;
    arena[at + 1]! += sums.totalVariance;
  }
  for (let p = 0; p < k; p++) {
    const a = query[p]!;
    if (a >= attributeBound) continue;
    for (const sums of index.oneWay[a]!) {
      const empty = groupAt[groups.of(0, sums.size)]!;
      arena[empty]! -= sums.total;
      arena[empty + 1]! -= sums.totalVariance;
      const at = groupAt[groups.of(1 << p, sums.size)]!;
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
    const empty = groupAt[groups.of(0, size)]!;
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
      const at = groupAt[groups.of(1 << p, size)]!;
      const from = index.slotValues[slot]!;
      addProjection(arena, at, index.oneZ, from, index.oneDiag, from, index.oneRank, from, c, -1);
    }
    // z, s, a of the view projected on B = the shared attributes: O(|V| |B|), then dense O(|B|^2).
    const sizeB = groups.lengthOf(multiGroup[i]!);
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
}

/** What every group's `addGroup` reads and writes for one query. */
interface GroupContext {
  readonly arena: Float64Array;
  readonly groups: QueryGroups;
  readonly weightOf: Float64Array;
  /** Arena offsets of G (|A| x |B|) and S G^T (|B| x |A|). */
  readonly gAt: number;
  readonly sgAt: number;
  /** Strides of A's cells and the inverse transform of A (cached per shape). */
  readonly stridesA: readonly number[];
  readonly inv: Float64Array;
  readonly center: Float64Array;
  readonly variance: Float64Array;
  readonly covariance: Float64Array | undefined;
}

/**
 * Group g's part of the answer: G = Inv_A S F_B (an |A| x |B| matrix built in the
 * arena at `gAt`), then center += G z, variance += diag(G Cov G^T) (and the full
 * G Cov G^T into `covariance` when given; S G^T at `sgAt`). O(|A| |B| (|A| + |B|)).
 */
function addGroup(context: GroupContext, g: number): void {
  const { arena, groups, weightOf, gAt, sgAt, stridesA, inv, center, variance, covariance } = context;
  const queryCardinalities = groups.queryCardinalities;
  const k = queryCardinalities.length;
  const sizeA = center.length;
  const bPositions: number[] = [];
  for (let p = 0; p < k; p++) if ((groups.mask[g]! >>> p) & 1) bPositions.push(p);
  const bCards = bPositions.map((p) => queryCardinalities[p]!);
  const sizeB = groups.lengthOf(g);
  const zAt = groups.at[g]!;
  const covAt = zAt + sizeB;
  const bStrides = stridesOf(bCards);
  const w = 1 / groups.size[g]!;
  // G = Inv_A S F_B as an |A| x |B| matrix (column-major): F_B the transform of B's cells,
  // S moves B's coefficient j to A's coefficient target(j) scaled by w / W_support(j),
  // Inv_A the inverse transform of A (both matrices cached per shape).
  const F = transformMatrix(bCards, false);
  arena.fill(0, gAt, gAt + 2 * sizeA * groups.widest);
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

/**
 * The groups' sampling errors sum to zero across the partition: subtracts
 * f_a (1 - f_a) / n from every cell's variance (clipped at 0) and
 * (delta_aa' f_a - f_a f_a') / n from the covariance, f = the released answer
 * clipped at 0 and normalised (uniform when nothing is left). O(|A|), O(|A|^2) with covariance.
 */
function subtractSampling(
  fitted: Float64Array,
  population: number,
  variance: Float64Array,
  covariance: Float64Array | undefined,
): void {
  const sizeA = variance.length;
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
}
