import { coveringDesign } from "@calm-ldp/covering-design";
import { kSubsets, type Rng, sampleWithoutReplacement, seededRng, uniformInt } from "@calm-ldp/random";
import { binomialCoefficient } from "./choose-parameters.js";
import { invalid } from "./errors.js";

/** How views are chosen when fewer than all l-subsets are used. */
export type ViewSelection = "balanced" | "random";

/** Options of {@link selectViews}. */
export interface SelectViewsOptions {
  /** "balanced" (default) or "random" (uniform m-subset of the l-subsets). */
  selection?: ViewSelection;
  /** Start from a covering design of the k-subsets by l-subsets (CALM when l >= k). */
  cover?: { k: number };
  /** Seed for tie-breaking and random choice (default 0): the same inputs always give the same views. */
  seed?: number;
}

/** Above this many l-subsets the balanced greedy scores a random sample of candidates per step. */
const ENUMERATION_LIMIT = 20_000;
const SAMPLED_CANDIDATES = 512;

/**
 * The m views (l-subsets of d attributes, each sorted ascending, listed in
 * lexicographic order) CALM assigns user groups to.
 *
 * - m >= C(d, l): every l-subset.
 * - `cover` given (l >= k): the covering design's blocks first (every k-subset
 *   inside some view), then, if m is larger, further views chosen as below.
 * - "balanced": greedy; each step adds the l-subset minimising
 *   d^2 * sum_{i in S} count(i) + sum_{i<j in S} count(i, j) (so attributes, and then
 *   pairs, appear as equally often as possible), ties broken by a seeded generator.
 *   O(m C(d, l) l^2), or O(m 512 l^2) when C(d, l) > 20,000 (sampled candidates).
 * - "random": a uniformly random m-subset of the l-subsets. O(m l).
 * The paper leaves this choice open (../../../docs/algorithms.md#choosing-the-view-size-and-the-number-of-views); the package README
 * compares the two by measured SSE.
 */
export function selectViews(d: number, l: number, m: number, options: SelectViewsOptions = {}): number[][] {
  if (!Number.isInteger(d) || d < 1) invalid("selectViews", "d must be an integer >= 1", d);
  if (!Number.isInteger(l) || l < 1 || l > d)
    invalid("selectViews", `l must be an integer in [1, d = ${d}]`, l);
  const total = binomialCoefficient(d, l);
  if (!Number.isInteger(m) || m < 1) invalid("selectViews", "m must be an integer >= 1", m);
  if (m >= total) return kSubsets(d, l);
  const rng = seededRng(options.seed ?? 0);
  const chosen: number[][] = [];
  if (options.cover) {
    const blocks = coveringDesign(d, l, options.cover.k);
    if (blocks.length > m) {
      invalid(
        "selectViews",
        `m must be at least the covering design size ${blocks.length} for (d=${d}, l=${l}, k=${options.cover.k})`,
        m,
      );
    }
    for (const block of blocks) chosen.push([...block].sort((a, b) => a - b));
  }
  if (chosen.length < m) {
    if ((options.selection ?? "balanced") === "random") addRandom(chosen, d, l, m, total, rng);
    else addBalanced(chosen, d, l, m, total, rng);
  }
  return chosen.sort(compareSubsets);
}

function compareSubsets(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** The l-subset of rank r in colex order (combinatorial number system). O(d). */
function unrankSubset(rank: number, d: number, l: number): number[] {
  const out = new Array<number>(l);
  let r = rank;
  let x = d - 1;
  for (let i = l; i >= 1; i--) {
    while (binomialCoefficient(x, i) > r) x--;
    out[i - 1] = x;
    r -= binomialCoefficient(x, i);
    x--;
  }
  return out;
}

function keyOf(subset: readonly number[]): string {
  return subset.join(",");
}

function addRandom(chosen: number[][], d: number, l: number, m: number, total: number, rng: Rng): void {
  const taken = new Set(chosen.map(keyOf));
  if (total <= 2 ** 32) {
    for (const rank of sampleWithoutReplacement(rng, total, Math.min(total, m + taken.size))) {
      if (chosen.length >= m) break;
      const subset = unrankSubset(rank, d, l);
      const key = keyOf(subset);
      if (!taken.has(key)) {
        taken.add(key);
        chosen.push(subset);
      }
    }
  }
  while (chosen.length < m) {
    const subset = randomSubset(d, l, rng);
    const key = keyOf(subset);
    if (!taken.has(key)) {
      taken.add(key);
      chosen.push(subset);
    }
  }
}

function randomSubset(d: number, l: number, rng: Rng): number[] {
  const picked = new Set<number>();
  for (let j = d - l; j < d; j++) {
    const t = uniformInt(rng, j + 1);
    picked.add(picked.has(t) ? j : t);
  }
  return [...picked].sort((a, b) => a - b);
}

function addBalanced(chosen: number[][], d: number, l: number, m: number, total: number, rng: Rng): void {
  const single = new Float64Array(d);
  const pair = new Float64Array(d * d);
  const taken = new Set<string>();
  const count = (subset: readonly number[]) => {
    taken.add(keyOf(subset));
    for (let a = 0; a < subset.length; a++) {
      single[subset[a]!]!++;
      for (let b = a + 1; b < subset.length; b++) pair[subset[a]! * d + subset[b]!]!++;
    }
  };
  chosen.forEach(count);
  const cost = (subset: readonly number[]) => {
    let c = 0;
    for (let a = 0; a < subset.length; a++) {
      c += d * d * single[subset[a]!]!;
      for (let b = a + 1; b < subset.length; b++) c += pair[subset[a]! * d + subset[b]!]!;
    }
    return c;
  };
  const pool = total <= ENUMERATION_LIMIT ? kSubsets(d, l) : undefined;
  while (chosen.length < m) {
    let best: number[] | undefined;
    let bestCost = Number.POSITIVE_INFINITY;
    let ties = 0;
    const consider = (subset: number[]) => {
      if (taken.has(keyOf(subset))) return;
      const c = cost(subset);
      if (c < bestCost) {
        bestCost = c;
        best = subset;
        ties = 1;
      } else if (c === bestCost) {
        // Reservoir choice among equal-cost candidates: each tie equally likely.
        ties++;
        if (uniformInt(rng, ties) === 0) best = subset;
      }
    };
    if (pool) pool.forEach(consider);
    else for (let s = 0; s < SAMPLED_CANDIDATES; s++) consider(randomSubset(d, l, rng));
    if (!best) continue; // every sampled candidate was taken: sample again
    chosen.push(best);
    count(best);
  }
}
