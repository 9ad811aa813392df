import { binomialTable } from "./binomial.js";
import { popcount32, positionSubsets } from "./combinations.js";

/**
 * The mutable state of a covering search over the t-subsets of {0..v-1} (v <= 64,
 * C(v, t) < 2^31): the blocks (sorted points and a 64-bit mask as two words), how
 * many blocks cover each t-subset (indexed by colex rank), and the list of
 * uncovered t-subsets with O(1) insertion, removal and uniform choice.
 * @internal
 */
export class CoverState {
  readonly v: number;
  readonly k: number;
  readonly t: number;
  /** C(v, t). */
  readonly tsets: number;
  /** Colex rank terms: binom[c * (t + 1) + i] = C(c, i). */
  private readonly binom: Int32Array;
  private readonly width: number;
  /** Blocks covering each t-subset. */
  readonly cover: Int32Array;
  /** Uncovered t-subsets (ranks) in `uncovered[0 .. uncoveredCount)`; `slot[r]` its position or -1. */
  readonly uncovered: Int32Array;
  private readonly slot: Int32Array;
  uncoveredCount: number;
  /** Sorted points of block b: points[b * k .. b * k + k). */
  points: Int32Array;
  low: Int32Array;
  high: Int32Array;
  blockCount = 0;
  /** Position subsets of a block: C(k, t) of size t, and C(k - 1, t - 1) of size t - 1. */
  private readonly blockSubsets: { count: number; positions: Int32Array };
  private readonly restSubsets: { count: number; positions: Int32Array };
  private readonly rest: Int32Array;
  private readonly scratch: Int32Array;

  constructor(v: number, k: number, t: number, tsets: number) {
    this.v = v;
    this.k = k;
    this.t = t;
    this.tsets = tsets;
    this.binom = binomialTable(v, t);
    this.width = t + 1;
    this.cover = new Int32Array(tsets);
    this.uncovered = new Int32Array(tsets);
    this.slot = new Int32Array(tsets);
    for (let r = 0; r < tsets; r++) {
      this.uncovered[r] = r;
      this.slot[r] = r;
    }
    this.uncoveredCount = tsets;
    this.points = new Int32Array(64 * k);
    this.low = new Int32Array(64);
    this.high = new Int32Array(64);
    this.blockSubsets = positionSubsets(k, t);
    this.restSubsets = positionSubsets(k - 1, t - 1);
    this.rest = new Int32Array(k);
    this.scratch = new Int32Array(Math.max(k, t));
  }

  /** Colex rank of sorted points `p[0..t)`. */
  rankOf(p: ArrayLike<number>): number {
    let rank = 0;
    for (let i = 0; i < this.t; i++) rank += this.binom[p[i]! * this.width + i + 1]!;
    return rank;
  }

  /** The t points of colex rank `rank`, ascending, into `out`. O(t v). */
  unrank(rank: number, out: Int32Array): void {
    let rest = rank;
    let c = this.v - 1;
    for (let i = this.t; i >= 1; i--) {
      while (this.binom[c * this.width + i]! > rest) c--;
      out[i - 1] = c;
      rest -= this.binom[c * this.width + i]!;
      c--;
    }
  }

  /** Rank of the t-set S ∪ {z}, S = the t - 1 sorted points `set[positions[start + j]]`, z not in S. */
  rankWith(z: number, set: Int32Array, positions: Int32Array, start: number): number {
    const binom = this.binom;
    const width = this.width;
    let rank = 0;
    let pos = 1;
    let inserted = false;
    for (let j = 0; j < this.t - 1; j++) {
      const s = set[positions[start + j]!]!;
      if (!inserted && z < s) {
        rank += binom[z * width + pos]!;
        pos++;
        inserted = true;
      }
      rank += binom[s * width + pos]!;
      pos++;
    }
    if (!inserted) rank += binom[z * width + pos]!;
    return rank;
  }

  private markCovered(rank: number): void {
    const position = this.slot[rank]!;
    const lastRank = this.uncovered[--this.uncoveredCount]!;
    this.uncovered[position] = lastRank;
    this.slot[lastRank] = position;
    this.slot[rank] = -1;
  }

  private markUncovered(rank: number): void {
    this.uncovered[this.uncoveredCount] = rank;
    this.slot[rank] = this.uncoveredCount++;
  }

  /** Append a block (k sorted distinct points) and count its t-subsets. O(C(k, t) t). */
  addBlock(sorted: ArrayLike<number>): void {
    const k = this.k;
    if ((this.blockCount + 1) * k > this.points.length) {
      const grown = new Int32Array(this.points.length * 2);
      grown.set(this.points);
      this.points = grown;
      const low = new Int32Array(this.low.length * 2);
      low.set(this.low);
      this.low = low;
      const high = new Int32Array(this.high.length * 2);
      high.set(this.high);
      this.high = high;
    }
    const b = this.blockCount++;
    let low = 0;
    let high = 0;
    for (let i = 0; i < k; i++) {
      const p = sorted[i]!;
      this.points[b * k + i] = p;
      if (p < 32) low |= 1 << p;
      else high |= 1 << (p - 32);
    }
    this.low[b] = low;
    this.high[b] = high;
    this.forEachSubset(b, (rank) => {
      if (this.cover[rank]++ === 0) this.markCovered(rank);
    });
  }

  /** Remove block b (the last block takes its index). O(C(k, t) t). */
  removeBlock(b: number): void {
    this.forEachSubset(b, (rank) => {
      if (--this.cover[rank]! === 0) this.markUncovered(rank);
    });
    const last = --this.blockCount;
    if (b !== last) {
      this.points.copyWithin(b * this.k, last * this.k, last * this.k + this.k);
      this.low[b] = this.low[last]!;
      this.high[b] = this.high[last]!;
    }
  }

  private forEachSubset(b: number, visit: (rank: number) => void): void {
    const { count, positions } = this.blockSubsets;
    const t = this.t;
    const base = b * this.k;
    const binom = this.binom;
    const width = this.width;
    for (let s = 0; s < count; s++) {
      let rank = 0;
      for (let i = 0; i < t; i++) rank += binom[this.points[base + positions[s * t + i]!]! * width + i + 1]!;
      visit(rank);
    }
  }

  /** Number of t-subsets covered by block b alone. */
  uniqueCount(b: number): number {
    let unique = 0;
    this.forEachSubset(b, (rank) => {
      if (this.cover[rank] === 1) unique++;
    });
    return unique;
  }

  /** Fill `this.rest` with the points of block b except position `skip`. */
  private loadRest(b: number, skip: number): void {
    const base = b * this.k;
    let j = 0;
    for (let i = 0; i < this.k; i++) if (i !== skip) this.rest[j++] = this.points[base + i]!;
  }

  /**
   * Change in the number of uncovered t-subsets if the point at position `skip` of
   * block b were replaced by `y` (not in the block). O(C(k-1, t-1) t).
   */
  moveDelta(b: number, skip: number, y: number): number {
    const x = this.points[b * this.k + skip]!;
    this.loadRest(b, skip);
    const { count, positions } = this.restSubsets;
    const span = this.t - 1;
    let delta = 0;
    for (let s = 0; s < count; s++) {
      if (this.cover[this.rankWith(x, this.rest, positions, s * span)] === 1) delta++;
      if (this.cover[this.rankWith(y, this.rest, positions, s * span)] === 0) delta--;
    }
    return delta;
  }

  /** Replace the point at position `skip` of block b by `y`, keeping the block sorted. */
  applyMove(b: number, skip: number, y: number): void {
    const k = this.k;
    const base = b * k;
    const x = this.points[base + skip]!;
    this.loadRest(b, skip);
    const { count, positions } = this.restSubsets;
    const span = this.t - 1;
    for (let s = 0; s < count; s++) {
      const lost = this.rankWith(x, this.rest, positions, s * span);
      if (--this.cover[lost]! === 0) this.markUncovered(lost);
      const gained = this.rankWith(y, this.rest, positions, s * span);
      if (this.cover[gained]++ === 0) this.markCovered(gained);
    }
    // Re-insert y into the sorted block.
    let j = 0;
    let placed = false;
    for (let i = 0; i < k - 1; i++) {
      const p = this.rest[i]!;
      if (!placed && y < p) {
        this.points[base + j++] = y;
        placed = true;
      }
      this.points[base + j++] = p;
    }
    if (!placed) this.points[base + j] = y;
    if (x < 32) this.low[b]! &= ~(1 << x);
    else this.high[b]! &= ~(1 << (x - 32));
    if (y < 32) this.low[b]! |= 1 << y;
    else this.high[b]! |= 1 << (y - 32);
  }

  /** |block b ∩ set| for a set given by its mask words. */
  intersection(b: number, low: number, high: number): number {
    return popcount32(this.low[b]! & low) + popcount32(this.high[b]! & high);
  }

  /** Whether point p is in block b. */
  contains(b: number, p: number): boolean {
    return p < 32 ? ((this.low[b]! >>> p) & 1) === 1 : ((this.high[b]! >>> (p - 32)) & 1) === 1;
  }

  /** The blocks as sorted arrays. */
  blocks(): number[][] {
    const out: number[][] = [];
    for (let b = 0; b < this.blockCount; b++)
      out.push(Array.from(this.points.subarray(b * this.k, b * this.k + this.k)));
    return out;
  }

  /** C(k - 1, t - 1): the most t-subsets one point swap can uncover (or cover). */
  /** C(k, t): the t-subsets of one block. */
  get subsetsPerBlock(): number {
    return this.blockSubsets.count;
  }

  get restDeltaBound(): number {
    return this.restSubsets.count;
  }

  /** Scratch space of length max(k, t) for callers. */
  get buffer(): Int32Array {
    return this.scratch;
  }
}
