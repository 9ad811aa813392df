import type { Rng } from "@calm-ldp/random";
import { boundedRandom as uniformInt } from "./bounded-random.js";
import { positionSubsets } from "./combinations.js";
import type { CoverState } from "./cover-state.js";

/**
 * Grows partial blocks to k points greedily: each step adds the point that puts
 * the most still-uncovered t-subsets inside the block (ties broken uniformly at
 * random). `grow(members, size)` extends the sorted `members[0..size)` in place to
 * k sorted points and returns how many uncovered t-subsets the added points bring
 * in. O(v C(k, t) t) per block.
 * @internal
 */
export function createBlockGrower(
  state: CoverState,
  rng: Rng,
): (members: Int32Array, size: number) => number {
  const { v, k, t } = state;
  const inBlock = new Uint8Array(v);
  const subsetsBySize = Array.from({ length: k }, (_, s) => positionSubsets(s, t - 1));
  return (members, size) => {
    inBlock.fill(0);
    for (let i = 0; i < size; i++) inBlock[members[i]!] = 1;
    let total = 0;
    for (; size < k; size++) {
      const { count, positions } = subsetsBySize[size]!;
      let best = -1;
      let bestGain = -1;
      let ties = 0;
      for (let p = 0; p < v; p++) {
        if (inBlock[p]) continue;
        let gain = 0;
        for (let s = 0; s < count; s++)
          if (state.cover[state.rankWith(p, members, positions, s * (t - 1))] === 0) gain++;
        if (gain > bestGain) {
          best = p;
          bestGain = gain;
          ties = 1;
        } else if (gain === bestGain && uniformInt(rng, ++ties) === 0) {
          best = p;
        }
      }
      total += bestGain;
      let i = size;
      while (i > 0 && members[i - 1]! > best) {
        members[i] = members[i - 1]!;
        i--;
      }
      members[i] = best;
      inBlock[best] = 1;
    }
    return total;
  };
}

/**
 * Greedy completion of a covering: while some t-subset is uncovered, grow
 * `candidates` blocks, each from a uniformly chosen uncovered t-subset (see
 * {@link createBlockGrower}), and keep the one covering the most; then drop
 * redundant blocks. A variant of the greedy set-cover heuristic (Chvátal, 1979);
 * O(blocks * candidates * v * C(k, t) * t).
 * @internal
 */
export function greedyComplete(state: CoverState, rng: Rng, candidates = 1): void {
  const { k, t } = state;
  const grow = createBlockGrower(state, rng);
  const members = new Int32Array(k);
  const chosen = new Int32Array(k);
  while (state.uncoveredCount > 0) {
    let bestTotal = -1;
    for (let candidate = 0; candidate < candidates; candidate++) {
      state.unrank(state.uncovered[uniformInt(rng, state.uncoveredCount)]!, members);
      const total = grow(members, t);
      if (total > bestTotal) {
        bestTotal = total;
        chosen.set(members);
      }
    }
    state.addBlock(chosen);
  }
  pruneRedundant(state);
}

/** Remove blocks that cover no t-subset alone, last block first. O(blocks C(k, t) t). @internal */
export function pruneRedundant(state: CoverState): void {
  for (let b = state.blockCount - 1; b >= 0; b--) if (state.uniqueCount(b) === 0) state.removeBlock(b);
}
