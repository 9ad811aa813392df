import { contingencyTable, type RecordStore, recordAt, sse } from "@calm-ldp/marginal-algebra";
import { deriveSeed, seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import type { BaselineProtocol } from "./api.js";
import { createMethod, METHOD_IDS, METHOD_INFO } from "./registry.js";
import { chainStore, mixedSchema, moments } from "./test-support.js";

/**
 * The three ways a population reaches an aggregator must give the same
 * distribution of estimates: `report` + `add` for every record (the real
 * client), the batched per-user path, and the count-level simulation. Every method
 * runs on a non-binary schema (cardinalities 3, 2, 4, 5: the binary-encoded
 * methods then exercise the encoding) with correlated attributes, R repetitions
 * each, and the means of three statistics are compared between paths by a
 * two-sample z-test: one answer cell, the signal `sum_c (M_c - 1/|V|) T_c` (moves
 * with any shrinkage or scaling of the answer), and the SSE of the whole answer
 * (which carries the variance). Tolerance z <= 4.5:
 * about 130 comparisons, so a false alarm has probability about 1e-3 overall (the seeds
 * are fixed, so the outcome is reproducible); a wrong law (e.g. the wrong RR
 * probability, a biased group choice) moves these means by far more.
 */
const R = 240;
const Z = 4.5;
const QUERY = [1, 2];
const schema = mixedSchema();
/** The client path runs every record through `report`: 400 users keep it quick. */
const SMALL = chainStore(seededRng(11), 400, schema);
/** The batched paths are fast: 4000 users give them ten times the reports (3x the power). */
const LARGE = chainStore(seededRng(12), 4000, schema);
const truths = new Map([SMALL, LARGE].map((store) => [store, contingencyTable(store, QUERY)]));

type Path = "report" | "per-user" | "counts";

interface Statistics {
  cell: number[];
  signal: number[];
  error: number[];
}

function statistics(method: BaselineProtocol, path: Path, seed: number, store: RecordStore): Statistics {
  const N = store.size;
  const truth = truths.get(store)!;
  const plan = method.plan({ schema, n: N, eps: 1.5, k: 2 });
  const cell: number[] = [];
  const signal: number[] = [];
  const error: number[] = [];
  const uniform = 1 / truth.cells.length;
  const record = new Array<number>(4);
  for (let rep = 0; rep < R; rep++) {
    const rng = seededRng(deriveSeed(seed, rep));
    let aggregator = method.createAggregator(plan);
    if (path === "report") {
      for (let r = 0; r < N; r++) aggregator.add(method.report(plan, recordAt(store, r, record), rng));
    } else if (path === "per-user") aggregator = method.simulatePerUser!(plan, store, rng);
    else aggregator = method.simulate!(plan, store, rng);
    expect(aggregator.reports).toBe(N);
    const answer = method.estimate(plan, aggregator).query(QUERY);
    cell.push(answer.cells[0]!);
    signal.push(answer.cells.reduce((sum, t, c) => sum + (truth.cells[c]! - uniform) * t, 0));
    error.push(sse(answer.cells, truth.cells));
  }
  return { cell, signal, error };
}

function zScore(a: number[], b: number[]): number {
  const x = moments(a);
  const y = moments(b);
  const se = Math.sqrt(x.variance / a.length + y.variance / b.length);
  return se === 0 ? (x.mean === y.mean ? 0 : Number.POSITIVE_INFINITY) : Math.abs(x.mean - y.mean) / se;
}

const methods = new Map<string, BaselineProtocol>();
const perUserCache = new Map<string, Statistics>();
/** The method (CALM and BE need theta * n >= 1 view at 400 users) and its per-user statistics on `store`, computed once. */
function setup(id: string, store: RecordStore): { method: BaselineProtocol; perUser: Statistics } {
  let method = methods.get(id);
  if (method === undefined) {
    method = createMethod(id, { calm: { theta: 0.01 } });
    methods.set(id, method);
  }
  const key = `${id}/${store.size}`;
  let perUser = perUserCache.get(key);
  if (perUser === undefined) {
    perUser = statistics(method, "per-user", 1, store);
    perUserCache.set(key, perUser);
  }
  return { method, perUser };
}

/** The three statistics' means agree between two paths (two-sample z <= Z each). */
function expectSameDistribution(path: Statistics, perUser: Statistics): void {
  expect(zScore(path.cell, perUser.cell)).toBeLessThan(Z);
  expect(zScore(path.signal, perUser.signal)).toBeLessThan(Z);
  expect(zScore(path.error, perUser.error)).toBeLessThan(Z);
}

describe.each(METHOD_IDS.map((id) => [id]))("%s", (id) => {
  it("the client path (report + add per record) has the per-user path's distribution", () => {
    const { method, perUser } = setup(id, SMALL);
    expectSameDistribution(statistics(method, "report", 2, SMALL), perUser);
  });
});

describe.each(METHOD_IDS.filter((id) => METHOD_INFO[id].countLevel).map((id) => [id]))("%s", (id) => {
  it("the count-level simulation has the per-user path's distribution", () => {
    const { method, perUser } = setup(id, LARGE);
    expectSameDistribution(statistics(method, "counts", 3, LARGE), perUser);
  });
});

describe.each(METHOD_IDS.filter((id) => METHOD_INFO[id].expectedSse && id !== "uni").map((id) => [id]))(
  "%s",
  (id) => {
    it("expected SSE matches the measured mean SSE, and the answer is unbiased", () => {
      const { method, perUser } = setup(id, LARGE);
      const truth = truths.get(LARGE)!;
      const plan = method.plan({ schema, n: LARGE.size, eps: 1.5, k: 2 });
      const expected = method.expectedSse!(plan, QUERY, truth);
      const error = moments(perUser.error);
      // z-test of the mean SSE over R repetitions against the closed form (same tolerance).
      expect(Math.abs(error.mean - expected) / Math.sqrt(error.variance / R)).toBeLessThan(Z);
      const cell = moments(perUser.cell);
      expect(Math.abs(cell.mean - truth.cells[0]!) / Math.sqrt(cell.variance / R)).toBeLessThan(Z);
      const signal = moments(perUser.signal);
      const exact = truth.cells.reduce((sum, t) => sum + (t - 1 / truth.cells.length) * t, 0);
      expect(Math.abs(signal.mean - exact) / Math.sqrt(signal.variance / R)).toBeLessThan(Z);
    });
  },
);

describe("uni", () => {
  it("answers the uniform table; its expected SSE is its distance to the truth", () => {
    const { method, perUser } = setup("uni", SMALL);
    const truth = truths.get(SMALL)!;
    const plan = method.plan({ schema, n: SMALL.size, eps: 1.5, k: 2 });
    for (const error of perUser.error) expect(error).toBeCloseTo(method.expectedSse!(plan, QUERY, truth), 12);
    for (const cell of perUser.cell) expect(cell).toBeCloseTo(1 / 8, 12);
  });
});
