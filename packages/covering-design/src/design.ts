import { deriveSeed, seededRng } from "@calm-ldp/random";
import { anneal } from "./anneal.js";
import type { CoveringDesignOptions, CoveringDesignResult } from "./api.js";
import { binomial } from "./binomial.js";
import { knownDesigns } from "./constructions/catalog.js";
import {
  addPoint,
  extendBlocks,
  groupConstruction,
  groupConstructionDistinct,
  groupConstructionSize,
  restrictBlocks,
} from "./constructions/derived.js";
import { allSubsets, complementBlocks, partitionBlocks } from "./constructions/trivial.js";
import { CoverState } from "./cover-state.js";
import { DesignTooLargeError, fail } from "./errors.js";
import { createBlockGrower, greedyComplete, pruneRedundant } from "./greedy.js";
import { checkVkt, schonheimBound } from "./schonheim.js";

/** The seed used when none is given: the same call always returns the same blocks. */
export const DEFAULT_COVERING_SEED = 1;
/**
 * Most annealing moves used when none are given: the default is
 * min(DEFAULT_COVERING_ITERATIONS, DEFAULT_ANNEAL_WORK / estimated operations per move),
 * so a first call stays within about a second on a 2-core machine (see the README).
 */
export const DEFAULT_COVERING_ITERATIONS = 200_000;
/** Basic-operation budget of the default annealing (see {@link DEFAULT_COVERING_ITERATIONS}). */
const DEFAULT_ANNEAL_WORK = 5e7;
/**
 * The work limits of {@link coveringDesign}: which steps run for a given (v, k, t).
 * Past a limit the step is skipped for a cheaper construction (still a valid
 * covering, maybe larger), so a call's time and memory stay bounded (the
 * t-subset table at most 24 MiB).
 */
const SEARCH_LIMITS = {
  /** Largest C(v, t) the search tabulates (12 bytes per t-subset: 24 MiB). */
  searchTSubsets: 2 ** 21,
  /** Largest C(v, t) for which the add-a-point recursion is tried. */
  recursionTSubsets: 2 ** 14,
  /** Levels of the add-a-point recursion. */
  recursionDepth: 2,
  /** Largest number of blocks {@link coveringDesign} will materialise. */
  maxBlocks: 2 ** 18,
  /** Largest estimated greedy cost (basic operations) for which the greedy construction runs. */
  greedyWork: 1e8,
  /** Largest estimated greedy cost for which each greedy step compares 4 candidate blocks. */
  greedyMultiWork: 5e6,
  /** Largest estimated cost of one annealing move (basic operations) for which the annealing runs. */
  moveWork: 3000,
  /** Largest design the annealing starts from (beyond, CALM has no use for the design). */
  annealBlocks: 10_000,
  /** Largest blocks x C(k, t) for which a design from the recursions is pruned of redundant blocks. */
  pruneWork: 5e6,
  /** Largest design from the recursions that is pruned (beyond, CALM has no use for the design). */
  pruneBlocks: 20_000,
  /** In the recursions, restrict catalog designs on at most v + cheapDeletions points. */
  cheapDeletions: 3,
  /** Restrict catalog designs on at most this multiple of v points. */
  restrictFactor: 2,
} as const;

/** A design found for one (v, k, t): its size always, its blocks built on demand. */
interface Found {
  readonly size: number;
  readonly construction: string;
  readonly optimal: boolean;
  blocks(): readonly (readonly number[])[];
}

const constructionCache = new Map<string, Found>();
const designCache = new Map<string, Found>();

function found(blocks: number[][], construction: string, optimal: boolean): Found {
  const sorted = normalise(blocks);
  return { size: sorted.length, construction, optimal, blocks: () => sorted };
}

/** Blocks ascending inside, sorted lexicographically, without repeats. */
function normalise(blocks: readonly (readonly number[])[]): number[][] {
  const sorted = blocks.map((block) => block.slice().sort((a, b) => a - b));
  sorted.sort(compareBlocks);
  return sorted.filter((block, i) => i === 0 || compareBlocks(block, sorted[i - 1]!) !== 0);
}

function compareBlocks(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** The proven optima that need no search: the elementary cases and catalog designs meeting the Schönheim bound. */
function exactDesign(v: number, k: number, t: number): Found | undefined {
  if (k === v) return found([Array.from({ length: v }, (_, i) => i)], "the single block of all points", true);
  if (t === 1) return found(partitionBlocks(v, k), "partition into ceil(v/k) blocks", true);
  if (t === k) {
    const size = binomial(v, t);
    let cache: number[][] | undefined;
    return {
      size,
      construction: "all t-subsets",
      optimal: true,
      blocks: () => {
        if (size > SEARCH_LIMITS.maxBlocks) tooLarge(v, k, t, size);
        cache ??= allSubsets(v, t);
        return cache;
      },
    };
  }
  if (k === v - 1) return found(complementBlocks(v, t), "complements of t + 1 points", true);
  const bound = schonheimBound(v, k, t);
  for (const design of knownDesigns()) {
    if (design.v === v && design.k === k && design.t === t && design.size === bound) {
      return found(
        design.blocks().map((b) => b.slice()),
        design.name,
        true,
      );
    }
  }
  return undefined;
}

function tooLarge(v: number, k: number, t: number, size: number): never {
  throw new DesignTooLargeError(
    `coveringDesign: the (${v}, ${k}, ${t}) design found has ${size} blocks, above the 2^18 limit`,
  );
}

/** A CoverState holding `blocks` (partial blocks grown greedily to k points), completed greedily and pruned. */
function completeFrom(
  v: number,
  k: number,
  t: number,
  blocks: readonly (readonly number[])[],
  seed: number,
): CoverState {
  const state = new CoverState(v, k, t, binomial(v, t));
  const rng = seededRng(deriveSeed(seed, v, k, t, 2));
  const grow = createBlockGrower(state, rng);
  const members = new Int32Array(k);
  const partial: (readonly number[])[] = [];
  for (const block of blocks) {
    if (block.length === k) state.addBlock(block);
    else partial.push(block);
  }
  partial.sort((a, b) => b.length - a.length);
  for (const block of partial) {
    members.set(block);
    grow(members, block.length);
    state.addBlock(members);
  }
  greedyComplete(state, rng);
  return state;
}

/** Basic operations of growing one block greedily: sum over s = t..k-1 of (v - s) C(s, t-1) t. */
function growCost(v: number, k: number, t: number): number {
  let cost = 0;
  for (let s = t; s < k; s++) cost += (v - s) * binomial(s, t - 1) * t;
  return cost;
}

/**
 * Estimated basic operations of one annealing move on b blocks: the delta
 * (2 C(k-1, t-1) t) plus the expected block draws until one meets an uncovered
 * t-subset in t - 1 points (C(v, k) / (t C(v-t, k-t+1)), at most b).
 */
function moveCost(v: number, k: number, t: number, blocks: number): number {
  const tries = Math.min(blocks, binomial(v, k) / (t * binomial(v - t, k - t + 1)));
  return 2 * binomial(k - 1, t - 1) * t + 4 * tries;
}

/**
 * The best design from constructions alone (no annealing), memoised per seed and
 * recursion depth. Within the search limits (C(v, t) <= 2^21 and an estimated greedy
 * cost L(v,k,t) * growCost <= 10^8 operations): the smallest of the greedy covering
 * (4 candidate blocks per step when L * growCost <= 5 10^6), every catalog
 * design on v..2v points with block size <= k and strength >= t restricted to v
 * points, the two recursions of {@link cheapDesign} on searched designs (C(v, t) <= 2^14, two
 * levels) and {@link cheapDesign}; each completed greedily and pruned of redundant
 * blocks. Beyond the limits: {@link cheapDesign} alone.
 */
function constructionFor(v: number, k: number, t: number, seed: number, depth: number): Found {
  const exact = exactDesign(v, k, t);
  if (exact) return exact;
  const tsets = binomial(v, t);
  const greedyWork = schonheimBound(v, k, t) * growCost(v, k, t);
  if (tsets > SEARCH_LIMITS.searchTSubsets || greedyWork > SEARCH_LIMITS.greedyWork)
    return cheapDesign(v, k, t);
  const key = `${v},${k},${t},${seed},${depth}`;
  const cached = constructionCache.get(key);
  if (cached) return cached;
  const state = new CoverState(v, k, t, tsets);
  greedyComplete(
    state,
    seededRng(deriveSeed(seed, v, k, t, 1)),
    greedyWork <= SEARCH_LIMITS.greedyMultiWork ? 4 : 1,
  );
  let best = found(state.blocks(), "greedy", false);
  const consider = (blocks: readonly (readonly number[])[], name: string) => {
    const completed = completeFrom(v, k, t, blocks, seed);
    if (completed.blockCount < best.size) best = found(completed.blocks(), name, false);
  };
  for (const source of catalogSources(v, k, t)) {
    const restricted = restrictBlocks(source.blocks(), v, t);
    // Pruning rarely removes more than half the blocks: skip hopeless sources before the costly completion.
    if (restricted.length > 2 * best.size) continue;
    const name = source.v === v && source.k === k ? source.name : `${source.name}, restricted and padded`;
    consider(restricted, name);
  }
  const cheap = cheapDesign(v, k, t);
  if (cheap.size < best.size + 1 && cheap.size <= SEARCH_LIMITS.maxBlocks)
    consider(cheap.blocks(), cheap.construction);
  if (depth > 0 && t >= 2 && v - 1 > k && tsets <= SEARCH_LIMITS.recursionTSubsets) {
    const base = constructionFor(v - 1, k, t, seed, depth - 1);
    const apex = constructionFor(v - 1, k - 1, t - 1, seed, depth - 1);
    if (base.size + apex.size < best.size + 1) {
      consider(addPoint(base.blocks(), apex.blocks(), v), addPointName(v, k, t));
    }
    const smaller = constructionFor(v - 1, k - 1, t, seed, depth - 1);
    if (k - 1 >= t && smaller.size < best.size + 1)
      consider(extendBlocks(smaller.blocks(), v), extendName(v, k, t));
  }
  constructionCache.set(key, best);
  return best;
}

function catalogSources(v: number, k: number, t: number) {
  return knownDesigns().filter(
    (d) => d.v >= v && d.v <= SEARCH_LIMITS.restrictFactor * v && d.k <= k && d.t >= t,
  );
}

const cheapCache = new Map<string, Found>();
const keptCounts = new Map<string, number>();

/** Number of blocks of a catalog design keeping at least t points below v (memoised). */
function keptCount(
  source: { name: string; blocks(): readonly (readonly number[])[] },
  v: number,
  t: number,
): number {
  const key = `${source.name}|${v}|${t}`;
  let count = keptCounts.get(key);
  if (count === undefined) {
    count = 0;
    for (const block of source.blocks()) {
      let inside = 0;
      for (const p of block) if (p < v) inside++;
      if (inside >= t) count++;
    }
    keptCounts.set(key, count);
  }
  return count;
}

/**
 * A design from recursions alone, without search and without building blocks until
 * they are asked for (seed-independent, memoised): the smallest of the proven
 * optimum when there is one, the catalog designs restricted to v points (blocks
 * padded with the smallest missing points), the group construction and the
 * add-a-point recursion C(v,k,t) <= C(v-1,k,t) + C(v-1,k-1,t-1) on cheap designs.
 * O(v k t) states.
 */
function cheapDesign(v: number, k: number, t: number): Found {
  const exact = exactDesign(v, k, t);
  if (exact) return exact;
  const key = `${v},${k},${t}`;
  const cached = cheapCache.get(key);
  if (cached) return cached;
  const groupSize = groupConstructionSize(v, k, t);
  let best: Found = {
    ...builtOnDemand(v, k, t, groupSize, () => groupConstruction(v, k, t)),
    size: groupConstructionDistinct(v, k, t) ? groupSize : Number.POSITIVE_INFINITY,
    construction: "group construction (unions of t of ceil(v / floor(k/t)) groups)",
  };
  for (const source of catalogSources(v, k, t)) {
    if (source.v > v + SEARCH_LIMITS.cheapDeletions || keptCount(source, v, t) >= best.size) continue;
    const build = () => normalise(restrictBlocks(source.blocks(), v, t).map((block) => pad(block, v, k)));
    const size = build().length; // rebuilt on demand: memoised states keep no blocks
    if (size < best.size) {
      best = { size, construction: `${source.name}, restricted and padded`, optimal: false, blocks: build };
    }
  }
  if (t >= 2 && v - 1 > k) {
    const base = cheapDesign(v - 1, k, t);
    const apex = cheapDesign(v - 1, k - 1, t - 1);
    const size = base.size + apex.size;
    if (size < best.size) {
      best = {
        ...builtOnDemand(v, k, t, size, () => addPoint(base.blocks(), apex.blocks(), v)),
        construction: addPointName(v, k, t),
      };
    }
  }
  if (k - 1 >= t && v - 1 > k - 1) {
    const smaller = cheapDesign(v - 1, k - 1, t);
    const size = smaller.size;
    if (size < best.size) {
      best = {
        ...builtOnDemand(v, k, t, size, () => extendBlocks(smaller.blocks(), v)),
        construction: extendName(v, k, t),
      };
    }
  }
  cheapCache.set(key, best);
  return best;
}

/**
 * A non-optimal design of `size` blocks whose blocks `build` makes only when asked
 * (normalised; {@link DesignTooLargeError} above `SEARCH_LIMITS.maxBlocks` = 2^18
 * blocks). O(1); the blocks cost what `build` costs.
 */
function builtOnDemand(
  v: number,
  k: number,
  t: number,
  size: number,
  build: () => readonly (readonly number[])[],
): Pick<Found, "size" | "optimal" | "blocks"> {
  return {
    size,
    optimal: false,
    blocks: () => {
      if (size > SEARCH_LIMITS.maxBlocks) tooLarge(v, k, t, size);
      return normalise(build());
    },
  };
}

function addPointName(v: number, k: number, t: number): string {
  return `point added: C(${v - 1},${k},${t}) design + C(${v - 1},${k - 1},${t - 1}) design with point ${v - 1}`;
}

function extendName(v: number, k: number, t: number): string {
  return `C(${v - 1},${k - 1},${t}) design with point ${v - 1} added to every block`;
}

/** A sorted block padded to k points with the smallest points outside it. */
function pad(block: readonly number[], v: number, k: number): number[] {
  const out = block.slice();
  for (let p = 0; p < v && out.length < k; p++) if (!block.includes(p)) out.push(p);
  return out.sort((a, b) => a - b);
}

function resolve(where: string, v: number, k: number, t: number, options: CoveringDesignOptions): Found {
  checkVkt(where, v, k, t, 64);
  const seed = options.seed ?? DEFAULT_COVERING_SEED;
  const iterations = options.iterations;
  const timeLimit = options.timeLimitMs;
  if (!Number.isSafeInteger(seed) || seed < 0) fail(where, "options.seed must be a safe integer >= 0", seed);
  if (iterations !== undefined && (!Number.isSafeInteger(iterations) || iterations < 0))
    fail(where, "options.iterations must be a safe integer >= 0", iterations);
  if (timeLimit !== undefined && !(timeLimit >= 0))
    fail(where, "options.timeLimitMs must be a number >= 0", timeLimit);
  const key = `${v},${k},${t},${seed},${iterations},${timeLimit ?? ""}`;
  const cached = designCache.get(key);
  if (cached) return cached;
  const start = performance.now();
  const construction = constructionFor(v, k, t, seed, SEARCH_LIMITS.recursionDepth);
  let result = construction;
  const bound = schonheimBound(v, k, t);
  const tsets = binomial(v, t);
  if (
    !construction.optimal &&
    construction.size > bound &&
    tsets <= SEARCH_LIMITS.searchTSubsets &&
    construction.size <= SEARCH_LIMITS.pruneBlocks &&
    construction.size * binomial(k, t) <= SEARCH_LIMITS.pruneWork
  ) {
    const state = new CoverState(v, k, t, tsets);
    for (const block of construction.blocks()) state.addBlock(block);
    pruneRedundant(state); // designs from the recursions may hold redundant blocks
    const pruned = state.blockCount;
    const cost = moveCost(v, k, t, pruned);
    const moves = iterations ?? Math.min(DEFAULT_COVERING_ITERATIONS, Math.floor(DEFAULT_ANNEAL_WORK / cost));
    const annealed = moves > 0 && pruned <= SEARCH_LIMITS.annealBlocks && cost <= SEARCH_LIMITS.moveWork;
    const blocks = annealed
      ? anneal(state, seededRng(deriveSeed(seed, v, k, t, 3)), {
          iterations: moves,
          target: bound,
          ...(timeLimit === undefined ? {} : { deadline: start + timeLimit }),
        })
      : state.blocks();
    if (blocks.length < construction.size) {
      const how = blocks.length < pruned ? " + annealing" : " + pruning";
      result = found(blocks, `${construction.construction}${how}`, blocks.length === bound);
    }
  }
  if (!result.optimal && result.size === bound) result = { ...result, optimal: true };
  let blocks: readonly (readonly number[])[] | undefined;
  const build = result.blocks;
  result = { ...result, blocks: () => (blocks ??= build()) }; // designs from the recursions are built once, on demand
  designCache.set(key, result);
  return result;
}

/**
 * A covering design C(v, k, t): k-subsets ("blocks") of the points 0..v-1 such that
 * every t-subset lies in at least one block, as small as the package can make it.
 * Blocks are ascending arrays, sorted lexicographically (a fresh copy per call).
 *
 * Method: a proven optimum when one is known (t = 1, t = k, k >= v - 1, Steiner
 * systems and other designs meeting the Schönheim bound: STS(v), projective and
 * affine geometries, the unital S(2,4,28), inversive planes, SQS(2^m) and doubled
 * SQS); otherwise the smallest of several constructions (a greedy covering, catalog
 * designs restricted to v points, and C(v,k,t) <= C(v-1,k,t) + C(v-1,k-1,t-1)),
 * improved by simulated annealing (`options.iterations` moves; by default up to
 * 200,000, fewer for large k and t, see {@link CoveringDesignOptions}).
 * Deterministic for given (v, k, t, seed, iterations); results are cached. v <= 64.
 * When C(v, t) > 2^21 there is no search: the best restricted catalog design or the
 * group construction is used. Throws {@link DesignTooLargeError} above 2^18 blocks
 * (coverDesignSize still answers).
 */
export function coveringDesign(
  v: number,
  k: number,
  t: number,
  options: CoveringDesignOptions = {},
): number[][] {
  return resolve("coveringDesign", v, k, t, options)
    .blocks()
    .map((block) => block.slice());
}

/**
 * The number of blocks of {@link coveringDesign}(v, k, t, options): the
 * `CoverDesign(d, k, l)` of CALM's Algorithm 1 (../../../docs/algorithms.md#choosing-the-view-size-and-the-number-of-views), here with
 * v = d attributes, block size k = l and strength t = the query size. Same method,
 * cache and determinism; the blocks are not copied (and, beyond the search limit,
 * not even built). First call: up to the construction and annealing time; cached calls O(1).
 */
export function coverDesignSize(
  v: number,
  k: number,
  t: number,
  options: CoveringDesignOptions = {},
): number {
  return resolve("coverDesignSize", v, k, t, options).size;
}

/** {@link coveringDesign} with its size, Schönheim bound, optimality and construction. */
export function describeCoveringDesign(
  v: number,
  k: number,
  t: number,
  options: CoveringDesignOptions = {},
): CoveringDesignResult {
  const result = resolve("describeCoveringDesign", v, k, t, options);
  return {
    v,
    k,
    t,
    blocks: result.blocks().map((block) => block.slice()),
    size: result.size,
    lowerBound: schonheimBound(v, k, t),
    optimal: result.optimal,
    construction: result.construction,
  };
}

/**
 * A proven-optimal covering design when the package has one for (v, k, t) (see
 * {@link coveringDesign}), else undefined. No search. v <= 64.
 */
export function exactCovering(v: number, k: number, t: number): number[][] | undefined {
  checkVkt("exactCovering", v, k, t, 64);
  const design = exactDesign(v, k, t);
  return design?.blocks().map((block) => block.slice());
}

/** Empty the caches of {@link coveringDesign} (for benchmarks that time cold calls). */
export function clearCoveringDesignCache(): void {
  constructionCache.clear();
  designCache.clear();
  cheapCache.clear();
}
