import { CannotRunError } from "./errors.js";
import { normalQuantile } from "./normal-quantile.js";
import { distinctPermutations } from "./permutations.js";

/** A covered marginal's linear estimate and per-cell variance (fractions, attributes ascending). */
export interface BoundMarginal {
  readonly center: Float64Array;
  readonly variance: Float64Array;
  /** Row-major covariance of `center`, when asked for. */
  readonly covariance?: Float64Array;
}

/** What {@link boundInterval} returns. */
export interface BoundIntervalResult {
  readonly lower: Float64Array;
  readonly upper: Float64Array;
  /** The maximal covered parts (subsets of the query) whose estimates the bounds use (the C_i are their projections). */
  readonly marginals: readonly (readonly number[])[];
  /** One-sided confidence statements combined by the union bound (each at (1 - level) / events). */
  readonly events: number;
  /** The normal quantile each marginal bound uses. */
  readonly z: number;
}

/** Population count of a small bit mask. */
function bitCount(mask: number): number {
  let count = 0;
  for (let m = mask; m !== 0; m &= m - 1) count++;
  return count;
}

/**
 * A chain B_1..B_t of the query's covered parts whose union is the query: the
 * lower bound of a cell is m_{B_1} + sum_{i >= 2} (m_{B_i} - m_{C_i}),
 * C_i = B_i ∩ (B_1 ∪ .. ∪ B_{i-1}) (m of the empty set is 1). Steps that add no
 * attribute are dropped. All orders when there are at most 6 parts, otherwise one
 * greedy order (most overlap first) per starting part.
 */
function chainsOf(parts: readonly number[], full: number): { plus: number; minus: number }[][] {
  const orders =
    parts.length <= 6
      ? distinctPermutations(parts) // distinct parts: all |parts|! <= 720 orders
      : parts.map((start) => {
          const order = [start];
          let union = start;
          const left = parts.filter((p) => p !== start);
          while (left.length > 0 && union !== full) {
            let best = 0;
            for (let i = 1; i < left.length; i++) {
              const gain = (m: number) => (bitCount(m & ~union) > 0 ? bitCount(m & union) : -1);
              if (gain(left[i]!) > gain(left[best]!)) best = i;
            }
            const next = left.splice(best, 1)[0]!;
            order.push(next);
            union |= next;
          }
          return order;
        });
  const seen = new Set<string>();
  const chains: { plus: number; minus: number }[][] = [];
  for (const order of orders) {
    let union = 0;
    const chain: { plus: number; minus: number }[] = [];
    for (const part of order) {
      if ((part & ~union) === 0) continue;
      chain.push({ plus: part, minus: part & union });
      union |= part;
    }
    if (union !== full) continue;
    const key = chain.map((s) => `${s.plus}-${s.minus}`).join(",");
    if (seen.has(key)) continue;
    seen.add(key);
    chains.push(chain);
  }
  return chains;
}

/**
 * A sound interval for every cell of a marginal that no view covers (CALM's
 * maximum-entropy answers), from what the views do determine: the marginals
 * m_B of the query A on its covered parts B = A ∩ V.
 *
 * Whatever the true A-table x is, each cell obeys the Fréchet bounds
 *   x_a <= min_B m_B(a_B)                                     (upper)
 *   x_a >= m_{B_1}(a) + sum_{i>=2} [m_{B_i}(a) - m_{C_i}(a)]  (lower, a chain as in chainsOf)
 * (the lower one because the events "a on B_i" and "a on the union so far" both
 * imply "a on C_i", so P(E ∩ F) >= P(E) + P(F) - P(a on C_i)); the best chain is
 * taken. Only the maximal covered parts enter the upper bound (a finer part gives
 * a smaller bound). The m_B are not known but estimated (linear, unbiased, with
 * `marginal`'s variance), so each is replaced by its one-sided normal confidence
 * bound at (1 - level) / K, K = the number of one-sided statements used (upper
 * and lower of every maximal part, upper of every C_i): by the union bound every
 * cell's interval holds with probability >= level, whatever the table, i.e.
 * without the maximum-entropy model being right. Conservative: the width is the
 * Fréchet gap plus the noise margins. With no chain covering A the lower bound is
 * 0; with no covered part the interval is [0, 1]. The C_i (each inside a part)
 * are read off their part's estimate: its projection (the estimates are
 * consistent, so this is C_i's own) with the projected covariance. Cost: one
 * `marginal` per maximal part (with covariance when a C_i lies in it), plus
 * O(|A| * (parts + chains * steps)).
 */
export function boundInterval(
  query: readonly number[],
  cardinalities: readonly number[],
  viewAttributes: readonly (readonly number[])[],
  level: number,
  marginal: (attributes: readonly number[], withCovariance: boolean) => BoundMarginal,
): BoundIntervalResult {
  const k = query.length;
  if (k > 30)
    throw new CannotRunError(`boundInterval: at most 30 query attributes (got ${k}); no bound is computed`);
  const position = new Map<number, number>();
  query.forEach((a, p) => {
    position.set(a, p);
  });
  const masks = new Set<number>();
  for (const attributes of viewAttributes) {
    let mask = 0;
    for (const a of attributes) {
      const p = position.get(a);
      if (p !== undefined) mask |= 1 << p;
    }
    if (mask !== 0) masks.add(mask);
  }
  const parts = [...masks]
    .filter((m) => ![...masks].some((o) => o !== m && (o & m) === m))
    .sort((x, y) => x - y);
  const full = k === 0 ? 0 : (2 ** k - 1) | 0;
  const chains = chainsOf(parts, full);
  const minusSets = new Set<number>();
  for (const chain of chains) for (const step of chain) if (step.minus !== 0) minusSets.add(step.minus);
  const events = parts.length + (chains.length > 0 ? parts.length + minusSets.size : 0);
  const sizeA = cardinalities.reduce((s, c) => s * c, 1);
  const lower = new Float64Array(sizeA);
  const upper = new Float64Array(sizeA).fill(1);
  if (events === 0) return { lower, upper, marginals: [], events: 0, z: 0 };
  const z = normalQuantile(1 - (1 - level) / events);
  const stridesA: number[] = new Array(k);
  for (let p = k - 1, s = 1; p >= 0; p--) {
    stridesA[p] = s;
    s *= cardinalities[p]!;
  }
  /** Per used part: confidence bounds per cell of the part, and the map from A's cells to the part's. */
  interface Bounds {
    lo: Float64Array;
    up: Float64Array;
    cellOf: Uint32Array;
  }
  const bounds = new Map<number, Bounds>();
  const marginals: number[][] = [];
  const positionsOf = (mask: number) => {
    const positions: number[] = [];
    for (let p = 0; p < k; p++) if ((mask >>> p) & 1) positions.push(p);
    return positions;
  };
  // Per maximal part, its estimate (with covariance when some C_i lies inside it).
  const estimates = new Map<number, BoundMarginal>();
  for (const part of parts) {
    const attributes = positionsOf(part).map((p) => query[p]!);
    marginals.push(attributes);
    const inside = [...minusSets].some((c) => (c & part) === c);
    estimates.set(part, marginal(attributes, inside));
  }
  for (const mask of [...parts, ...minusSets]) {
    const positions = positionsOf(mask);
    const { center, variance } =
      estimates.get(mask) ?? projectedEstimate(estimates, parts, mask, positionsOf, cardinalities);
    const lo = new Float64Array(center.length);
    const up = new Float64Array(center.length);
    for (let b = 0; b < center.length; b++) {
      const margin = z * Math.sqrt(Math.max(0, variance[b]!));
      lo[b] = Math.max(0, center[b]! - margin);
      up[b] = Math.min(1, center[b]! + margin);
    }
    const cellOf = new Uint32Array(sizeA);
    for (let a = 0; a < sizeA; a++) {
      let b = 0;
      for (const p of positions)
        b = b * cardinalities[p]! + (Math.floor(a / stridesA[p]!) % cardinalities[p]!);
      cellOf[a] = b;
    }
    bounds.set(mask, { lo, up, cellOf });
  }
  for (let a = 0; a < sizeA; a++) {
    let u = 1;
    for (const part of parts) {
      const b = bounds.get(part)!;
      u = Math.min(u, b.up[b.cellOf[a]!]!);
    }
    let l = 0;
    for (const chain of chains) {
      let value = 0;
      for (const step of chain) {
        const plus = bounds.get(step.plus)!;
        value += plus.lo[plus.cellOf[a]!]!;
        if (step.minus === 0) value -= 1;
        else {
          const minus = bounds.get(step.minus)!;
          value -= minus.up[minus.cellOf[a]!]!;
        }
      }
      // The first step subtracts m of the empty set (1) above; add it back.
      value += 1;
      l = Math.max(l, value);
    }
    // On the event that every statement holds, l <= x_a <= u; otherwise keep an ordered interval.
    lower[a] = Math.min(l, u);
    upper[a] = Math.max(l, u);
  }
  return { lower, upper, marginals, events, z };
}

/**
 * C's estimate (C, a mask of query positions, inside some maximal part) as the
 * projection of the first part containing it: sums of its cells and of the
 * blocks of its covariance (the part's estimate must carry one). O(|B|^2) for the part B.
 */
function projectedEstimate(
  estimates: ReadonlyMap<number, BoundMarginal>,
  parts: readonly number[],
  c: number,
  positionsOf: (mask: number) => number[],
  cardinalities: readonly number[],
): BoundMarginal {
  const part = parts.find((b) => (c & b) === c)!;
  const { center, covariance } = estimates.get(part)!;
  const partPositions = positionsOf(part);
  const keep = partPositions.map((p) => ((c >>> p) & 1) === 1);
  const cards = partPositions.map((p) => cardinalities[p]!);
  const target = new Uint32Array(center.length);
  let size = 1;
  for (let i = 0; i < cards.length; i++) if (keep[i]) size *= cards[i]!;
  for (let b = 0; b < center.length; b++) {
    let rest = b;
    let t = 0;
    let stride = 1;
    for (let i = cards.length - 1; i >= 0; i--) {
      const digit = rest % cards[i]!;
      rest = Math.floor(rest / cards[i]!);
      if (keep[i]) {
        t += digit * stride;
        stride *= cards[i]!;
      }
    }
    target[b] = t;
  }
  const outCenter = new Float64Array(size);
  const outVariance = new Float64Array(size);
  for (let b = 0; b < center.length; b++) {
    outCenter[target[b]!]! += center[b]!;
    for (let b2 = 0; b2 < center.length; b2++)
      if (target[b2] === target[b]) outVariance[target[b]!]! += covariance![b * center.length + b2]!;
  }
  return { center: outCenter, variance: outVariance };
}
