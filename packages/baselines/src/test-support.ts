import {
  contingencyTable,
  createRecordStore,
  type RecordStore,
  uniformSchema,
} from "@calm-ldp/marginal-algebra";
import { createBernoulli, type Rng } from "@calm-ldp/random";
import type { IntervalTable } from "./analytic-interval.js";

/** @internal Test data: n records of d i.i.d. Bernoulli(p) bits. O(n d). */
export function bernoulliStore(rng: Rng, n: number, d: number, p: number): RecordStore {
  const bit = createBernoulli(p);
  const columns = Array.from({ length: d }, () => {
    const column = new Uint8Array(n);
    for (let r = 0; r < n; r++) column[r] = bit.sample(rng) ? 1 : 0;
    return column;
  });
  return createRecordStore(uniformSchema(d), { columns });
}

/**
 * @internal A non-binary schema (cardinalities 3, 2, 4, 5; bits 2, 1, 2, 3) and
 * correlated test data over a schema: the contract suite's own.
 */
export { contractSchema as mixedSchema, contractStore as chainStore } from "./testing/contract.js";

/** @internal Mean and (unbiased) variance of a sample. */
export function moments(values: readonly number[]): { mean: number; variance: number } {
  const mean = values.reduce((s, x) => s + x, 0) / values.length;
  const variance = values.reduce((s, x) => s + (x - mean) ** 2, 0) / (values.length - 1);
  return { mean, variance };
}

/** @internal Calls `f` and returns what it threw (fails the test if it returned). */
export function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

/**
 * @internal Coverage of confidence intervals over `reps` repetitions:
 * `answersOf(r)` collects and estimates once (repetition r) and returns the
 * query function; every cell of every query is a (cell, repetition) pair, covered
 * when the population's true fraction lies in [lower, upper]. Returns the
 * covered share, the mean width and the worst cell's own coverage.
 * O(reps * (one collection + queries)).
 */
export function intervalCoverage(
  store: RecordStore,
  queries: readonly (readonly number[])[],
  reps: number,
  answersOf: (r: number) => (q: readonly number[]) => IntervalTable,
): { coverage: number; width: number; worst: number; pairs: number } {
  const truths = queries.map((q) => contingencyTable(store, q).cells);
  const hits = truths.map((truth) => new Uint32Array(truth.length));
  let covered = 0;
  let pairs = 0;
  let width = 0;
  for (let r = 0; r < reps; r++) {
    const answer = answersOf(r);
    queries.forEach((q, i) => {
      const { lower, upper } = answer(q);
      truths[i]!.forEach((x, a) => {
        pairs++;
        width += upper[a]! - lower[a]!;
        if (x >= lower[a]! && x <= upper[a]!) {
          covered++;
          hits[i]![a]!++;
        }
      });
    });
  }
  const worst = Math.min(...hits.flatMap((h) => [...h].map((x) => x / reps)));
  return { coverage: covered / pairs, width: width / pairs, worst, pairs };
}
