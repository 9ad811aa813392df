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
 * record it, delete the block that covers fewest t-subsets alone, and anneal the
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
  let best = state.blocks();
  const tPoints = new Int32Array(t);
  const outside = new Int32Array(k);
  for (let move = 0; move < schedule.iterations; move++) {
    if (state.uncoveredCount === 0) {
      while (state.uncoveredCount === 0) {
        if (state.blockCount < best.length) best = state.blocks();
        if (state.blockCount <= schedule.target || state.blockCount <= 1) break;
        dropWeakestBlock(state, rng);
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
    if (delta <= 0 || rng.nextUint32() < thresholds[delta]!) state.applyMove(b, skip, y);
  }
  if (state.uncoveredCount === 0 && state.blockCount < best.length) best = state.blocks();
  return best;
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

/** Delete the block covering fewest t-subsets alone (ties uniformly at random). */
function dropWeakestBlock(state: CoverState, rng: Rng): void {
  let weakest = 0;
  let fewest = Number.POSITIVE_INFINITY;
  let ties = 0;
  for (let b = 0; b < state.blockCount; b++) {
    const unique = state.uniqueCount(b);
    if (unique < fewest) {
      fewest = unique;
      weakest = b;
      ties = 1;
    } else if (unique === fewest && uniformInt(rng, ++ties) === 0) {
      weakest = b;
    }
  }
  state.removeBlock(weakest);
}
