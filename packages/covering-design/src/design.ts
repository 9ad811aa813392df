import { deriveSeed, seededRng } from "@calm-ldp/random";
import { anneal } from "./anneal.js";
import type { CoveringDesignOptions, CoveringDesignResult } from "./api.js";
import { binomial } from "./binomial.js";
import { knownDesigns } from "./constructions/catalog.js";
import {
  addPoint,
  groupConstruction,
  groupConstructionSize,
  restrictBlocks,
} from "./constructions/derived.js";
import { allSubsets, complementBlocks, partitionBlocks } from "./constructions/trivial.js";
import { CoverState } from "./cover-state.js";
import { DesignTooLargeError, fail } from "./errors.js";
import { createBlockGrower, greedyComplete } from "./greedy.js";
import { checkVkt, schonheimBound } from "./schonheim.js";

/** The seed used when none is given: the same call always returns the same blocks. */
export const DEFAULT_COVERING_SEED = 1;
/** Annealing moves used when none are given (about 0.05 to 0.6 s on a 2-core machine, see the README). */
export const DEFAULT_COVERING_ITERATIONS = 200_000;
/** Largest C(v, t) the search tabulates (12 bytes per t-subset: 24 MiB). */
const SEARCH_LIMIT = 2 ** 21;
/** Largest C(v, t) for which the add-a-point recursion is tried. */
const RECURSION_LIMIT = 2 ** 16;
/** Levels of the add-a-point recursion. */
const RECURSION_DEPTH = 2;
/** Largest number of blocks {@link coveringDesign} will materialise. */
const MAX_BLOCKS = 2 ** 22;
/** Restrict catalog designs on at most this multiple of v points. */
const RESTRICT_FACTOR = 2;

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
        if (size > MAX_BLOCKS) tooLarge(v, k, t, size);
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
    `coveringDesign: the (${v}, ${k}, ${t}) design found has ${size} blocks, above the 2^22 limit`,
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

/**
 * The best design from constructions alone (no annealing), memoised per seed:
 * the smallest of the greedy covering, every catalog design on v..2v points with
 * block size <= k and strength >= t restricted to v points (blocks padded greedily),
 * and the add-a-point recursion; each is completed and pruned of redundant blocks.
 */
function constructionFor(v: number, k: number, t: number, seed: number, depth: number): Found {
  const key = `${v},${k},${t},${seed},${depth}`;
  const cached = constructionCache.get(key);
  if (cached) return cached;
  let best = exactDesign(v, k, t);
  if (!best) {
    const sources = knownDesigns().filter(
      (d) => d.v >= v && d.v <= RESTRICT_FACTOR * v && d.k <= k && d.t >= t,
    );
    const tsets = binomial(v, t);
    if (tsets > SEARCH_LIMIT) {
      best = largeDesign(v, k, t, sources);
    } else {
      const state = new CoverState(v, k, t, tsets);
      greedyComplete(state, seededRng(deriveSeed(seed, v, k, t, 1)), depth === RECURSION_DEPTH ? 4 : 1);
      best = found(state.blocks(), "greedy", false);
      for (const source of sources) {
        const restricted = completeFrom(v, k, t, restrictBlocks(source.blocks(), v, t), seed);
        if (restricted.blockCount < best.size) {
          const name =
            source.v === v && source.k === k ? source.name : `${source.name}, restricted and padded`;
          best = found(restricted.blocks(), name, false);
        }
      }
      if (depth > 0 && t >= 2 && v - 1 > k && tsets <= RECURSION_LIMIT) {
        const base = constructionFor(v - 1, k, t, seed, depth - 1);
        const apex = constructionFor(v - 1, k - 1, t - 1, seed, depth - 1);
        if (base.size + apex.size < best.size + 1) {
          const grown = completeFrom(v, k, t, addPoint(base.blocks(), apex.blocks(), v), seed);
          if (grown.blockCount < best.size) {
            best = found(
              grown.blocks(),
              `point added to (${v - 1},${k},${t}) [${base.construction}] and (${v - 1},${k - 1},${t - 1}) [${apex.construction}]`,
              false,
            );
          }
        }
      }
    }
  }
  constructionCache.set(key, best);
  return best;
}

/** Beyond the search limit: the smallest restricted catalog design or the group construction, sizes without a search. */
function largeDesign(
  v: number,
  k: number,
  t: number,
  sources: readonly { v: number; blocks(): readonly (readonly number[])[]; name: string }[],
): Found {
  let best: Found | undefined;
  for (const source of sources) {
    const restricted = normalise(restrictBlocks(source.blocks(), v, t).map((block) => pad(block, v, k)));
    if (!best || restricted.length < best.size)
      best = found(restricted, `${source.name}, restricted and padded`, false);
  }
  const size = groupConstructionSize(v, k, t);
  if (best && best.size <= size) return best;
  let cache: number[][] | undefined;
  return {
    size,
    construction: `group construction (unions of t of ceil(v / floor(k/t)) groups)`,
    optimal: false,
    blocks: () => {
      if (size > MAX_BLOCKS) tooLarge(v, k, t, size);
      cache ??= normalise(groupConstruction(v, k, t));
      return cache;
    },
  };
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
  const iterations = options.iterations ?? DEFAULT_COVERING_ITERATIONS;
  const timeLimit = options.timeLimitMs;
  if (!Number.isSafeInteger(seed) || seed < 0) fail(where, "options.seed must be a safe integer >= 0", seed);
  if (!Number.isSafeInteger(iterations) || iterations < 0)
    fail(where, "options.iterations must be a safe integer >= 0", iterations);
  if (timeLimit !== undefined && !(timeLimit >= 0))
    fail(where, "options.timeLimitMs must be a number >= 0", timeLimit);
  const key = `${v},${k},${t},${seed},${iterations},${timeLimit ?? ""}`;
  const cached = designCache.get(key);
  if (cached) return cached;
  const start = performance.now();
  const construction = constructionFor(v, k, t, seed, RECURSION_DEPTH);
  let result = construction;
  const bound = schonheimBound(v, k, t);
  if (
    !construction.optimal &&
    construction.size > bound &&
    iterations > 0 &&
    binomial(v, t) <= SEARCH_LIMIT
  ) {
    const state = new CoverState(v, k, t, binomial(v, t));
    for (const block of construction.blocks()) state.addBlock(block);
    const blocks = anneal(state, seededRng(deriveSeed(seed, v, k, t, 3)), {
      iterations,
      target: bound,
      ...(timeLimit === undefined ? {} : { deadline: start + timeLimit }),
    });
    if (blocks.length < construction.size) {
      result = found(blocks, `${construction.construction} + annealing`, blocks.length === bound);
    }
  }
  if (!result.optimal && result.size === bound) result = { ...result, optimal: true, blocks: result.blocks };
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
 * improved by simulated annealing (`options.iterations` moves, default 200,000).
 * Deterministic for given (v, k, t, seed, iterations); results are cached. v <= 64.
 * When C(v, t) > 2^21 there is no search: the best restricted catalog design or the
 * group construction is used. Throws {@link DesignTooLargeError} above 2^22 blocks.
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
 * `CoverDesign(d, k, l)` of CALM's Algorithm 1 (ALGORITHMS.md §3.1), here with
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
}
