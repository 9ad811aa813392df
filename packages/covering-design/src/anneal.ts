import type { Rng } from "@calm-ldp/random";
import { boundedRandom as uniformInt } from "./bounded-random.js";
import type { CoverState } from "./cover-state.js";
import { deterministicExp } from "./deterministic-exp.js";

/** @internal Tuning of {@link anneal}. */
export interface AnnealSchedule {
  /** Moves in total. */
  iterations: number;
  /** Stop at this `performance.now()` time, if given. */
  deadline?: number;
  /** Stop once a covering with this many blocks is found (the lower bound). */
  target: number;
  /** Inverse temperature at the start of a cycle (per uncovered t-subset); default 3. */
  initialBeta?: number;
  /** Inverse temperature at the end of a cycle; default 8. */
  finalBeta?: number;
  /** Moves per cooling cycle; default 100,000. */
  cycleLength?: number;
}

/** Moves between updates of the acceptance thresholds. */
const STEP = 100;

/**
 * Simulated annealing for covering designs in the style of Nurmela and Östergård
 * ("Upper bounds for covering designs by simulated annealing", Congressus
 * Numerantium 96, 1993). The state holds a complete covering on entry. Repeatedly:
 * record it, delete the block that covers fewest t-subsets alone (among a random
 * sample when there are many blocks), and anneal the
 * number of uncovered t-subsets back to zero with moves that pick a uniformly random
 * uncovered t-subset T and a random block B meeting T in t - 1 points, and swap a
 * random point of B \ T for the point of T \ B. A move that uncovers delta > 0
 * more t-subsets is accepted with probability exp(-beta delta) (compared as an
 * integer threshold on a uniform 32-bit word); beta rises linearly from
 * `initialBeta` to `finalBeta` over each cycle of `cycleLength` moves and restarts
 * after every cycle and every success. The thresholds come from
 * {@link deterministicExp}, so the run is the same on every platform. Ends after
 * `iterations` moves (or at `deadline`, or on reaching `target`) and returns the
 * smallest complete covering seen. Each move costs O(C(k-1, t-1) t) plus the block
 * choice (expected O(b / #candidates), at most O(b)).
 * @internal
 */
export function anneal(state: CoverState, rng: Rng, schedule: AnnealSchedule): number[][] {
  const { k, t } = state;
  const beta0 = schedule.initialBeta ?? 3;
  const beta1 = schedule.finalBeta ?? 8;
  const cycle = Math.max(STEP, schedule.cycleLength ?? 100_000);
  const maxDelta = state.restDeltaBound;
  const thresholds = new Float64Array(maxDelta + 1);
  let phase = 0; // moves since the start of the current cycle
  const setThresholds = () => {
    const beta = beta0 + ((beta1 - beta0) * phase) / cycle;
    for (let delta = 1; delta <= maxDelta; delta++)
      thresholds[delta] = Math.floor(deterministicExp(-delta * beta) * 2 ** 32);
  };
  setThresholds();
  // The smallest complete covering seen is kept implicitly: `journal` records every
  // change made since it (deletions and point swaps), so it is the current state with
  // the journal undone. Marking a new best costs O(1) instead of a copy of all blocks.
  const journal = new Journal(k);
  let bestCount = Number.POSITIVE_INFINITY;
  const tPoints = new Int32Array(t);
  const outside = new Int32Array(k);
  for (let move = 0; move < schedule.iterations; move++) {
    if (state.uncoveredCount === 0) {
      while (state.uncoveredCount === 0) {
        if (state.blockCount <= schedule.target || state.blockCount <= 1) break;
        const [weakest, unique] = weakestBlock(state, rng);
        if (unique > 0 && state.blockCount < bestCount) {
          journal.clear();
          bestCount = state.blockCount;
        }
        journal.recordRemoval(state, weakest);
        state.removeBlock(weakest);
      }
      if (state.uncoveredCount === 0) break;
      phase = 0;
      setThresholds();
    } else if (++phase % STEP === 0) {
      if (phase >= cycle) phase = 0;
      setThresholds();
    }
    if ((move & 1023) === 0 && schedule.deadline !== undefined && performance.now() > schedule.deadline)
      break;
    // A random uncovered t-subset T.
    state.unrank(state.uncovered[uniformInt(rng, state.uncoveredCount)]!, tPoints);
    let low = 0;
    let high = 0;
    for (let i = 0; i < t; i++) {
      const p = tPoints[i]!;
      if (p < 32) low |= 1 << p;
      else high |= 1 << (p - 32);
    }
    const b = chooseBlock(state, rng, low, high, t - 1);
    // y: a point of T not in B (the only one when |B ∩ T| = t - 1).
    let y = -1;
    let seen = 0;
    for (let i = 0; i < t; i++) {
      const p = tPoints[i]!;
      if (!state.contains(b, p) && uniformInt(rng, ++seen) === 0) y = p;
    }
    // x: a random point of B not in T.
    let outsideCount = 0;
    for (let i = 0; i < k; i++) {
      const p = state.points[b * k + i]!;
      const inT = p < 32 ? (low >>> p) & 1 : (high >>> (p - 32)) & 1;
      if (!inT) outside[outsideCount++] = i;
    }
    const skip = outside[uniformInt(rng, outsideCount)]!;
    const delta = state.moveDelta(b, skip, y);
    if (delta <= 0 || rng.nextUint32() < thresholds[delta]!) {
      journal.recordMove(b, state.points[b * k + skip]!, y);
      state.applyMove(b, skip, y);
    }
  }
  if (state.uncoveredCount === 0 && state.blockCount < bestCount) return state.blocks();
  return journal.undo(state);
}

/**
 * An undo log of deletions and point swaps on a CoverState's blocks, replayed
 * backwards on a copy of the point array (O(k) per entry; no coverage counts needed).
 */
class Journal {
  private entries = new Int32Array(1024);
  private length = 0;

  constructor(private readonly k: number) {}

  clear(): void {
    this.length = 0;
  }

  private reserve(size: number): void {
    if (this.length + size > this.entries.length) {
      const grown = new Int32Array(Math.max(2 * this.entries.length, this.length + size));
      grown.set(this.entries.subarray(0, this.length));
      this.entries = grown;
    }
  }

  /** Block b had point x replaced by y. Entry: [x, y, b, 0]. */
  recordMove(b: number, x: number, y: number): void {
    this.reserve(4);
    this.entries.set([x, y, b, 0], this.length);
    this.length += 4;
  }

  /** Block b (of state.blockCount) is about to be removed. Entry: [points..., b, 1]. */
  recordRemoval(state: CoverState, b: number): void {
    const k = this.k;
    this.reserve(k + 2);
    this.entries.set(state.points.subarray(b * k, b * k + k), this.length);
    this.entries[this.length + k] = b;
    this.entries[this.length + k + 1] = 1;
    this.length += k + 2;
  }

  /** The blocks as they were when the journal was last cleared. */
  undo(state: CoverState): number[][] {
    const k = this.k;
    let count = state.blockCount;
    const points = new Int32Array((count + this.removals()) * k);
    points.set(state.points.subarray(0, count * k));
    let end = this.length;
    while (end > 0) {
      const kind = this.entries[end - 1]!;
      if (kind === 0) {
        const x = this.entries[end - 4]!;
        const y = this.entries[end - 3]!;
        const b = this.entries[end - 2]!;
        const block = points.subarray(b * k, b * k + k);
        block[block.indexOf(y)] = x;
        block.sort();
        end -= 4;
      } else {
        const b = this.entries[end - 2]!;
        // removeBlock(b) moved the last block into b: move it back, then restore b.
        points.copyWithin(count * k, b * k, b * k + k);
        points.set(this.entries.subarray(end - 2 - k, end - 2), b * k);
        count++;
        end -= k + 2;
      }
    }
    const out: number[][] = [];
    for (let b = 0; b < count; b++) out.push(Array.from(points.subarray(b * k, b * k + k)));
    return out;
  }

  private removals(): number {
    let removals = 0;
    let end = this.length;
    while (end > 0) {
      if (this.entries[end - 1] === 0) end -= 4;
      else {
        removals++;
        end -= this.k + 2;
      }
    }
    return removals;
  }
}

/**
 * A uniformly random block meeting the set (mask low/high) in exactly `meet`
 * points: rejection sampling over uniformly drawn blocks (up to b tries), then a
 * full scan; a uniformly random block if none qualifies.
 */
function chooseBlock(state: CoverState, rng: Rng, low: number, high: number, meet: number): number {
  const count = state.blockCount;
  for (let tries = 0; tries < count; tries++) {
    const b = uniformInt(rng, count);
    if (state.intersection(b, low, high) === meet) return b;
  }
  let chosen = -1;
  let seen = 0;
  for (let b = 0; b < count; b++) {
    if (state.intersection(b, low, high) === meet && uniformInt(rng, ++seen) === 0) chosen = b;
  }
  return chosen >= 0 ? chosen : uniformInt(rng, count);
}

/** Work budget (t-subset look-ups) of choosing which block to delete after a success. */
const DROP_WORK = 20_000;

/**
 * The block covering fewest t-subsets alone (ties uniformly at random) and that
 * number, among all blocks, or among s uniformly drawn ones when there are more than
 * 4s blocks, s = clamp(DROP_WORK / C(k, t), 4, 64) (so a success costs at most
 * O(max(4, DROP_WORK / C(k, t)) C(k, t) t), not O(b C(k, t) t)).
 */
function weakestBlock(state: CoverState, rng: Rng): [number, number] {
  let weakest = 0;
  let fewest = Number.POSITIVE_INFINITY;
  let ties = 0;
  const sample = Math.max(4, Math.min(64, Math.floor(DROP_WORK / state.subsetsPerBlock)));
  const sampled = state.blockCount > 4 * sample;
  const examined = sampled ? sample : state.blockCount;
  for (let i = 0; i < examined; i++) {
    const b = sampled ? uniformInt(rng, state.blockCount) : i;
    const unique = state.uniqueCount(b);
    if (unique < fewest) {
      fewest = unique;
      weakest = b;
      ties = 1;
    } else if (unique === fewest && uniformInt(rng, ++ties) === 0) {
      weakest = b;
    }
  }
  return [weakest, fewest];
}
