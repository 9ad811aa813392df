import { contingencyTable, projectTable, randomQueries, sse } from "@calm-ldp/marginal-algebra";
import { deriveSeed, seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { CannotRunError, InvalidParameterError } from "./errors.js";
import { estimateCalm } from "./estimate.js";
import { estimateCalmPlus } from "./estimate-plus.js";
import { helmertBasis, interactionTransform } from "./interaction-basis.js";
import { planCalm } from "./plan.js";
import { simulateCalm } from "./simulate.js";
import { independentStore, markovStore, maxViewDisagreement, skewedChainStore } from "./test-support.js";

/** Counts per category of 8 independent skewed attributes (the "pairs" evidence and centre tests). */
const SKEWED_MARGINALS = [
  [800, 100, 100],
  [100, 850, 50],
  [700, 300],
  [50, 150, 800],
  [900, 100],
  [600, 300, 100],
  [850, 150],
  [100, 100, 800],
];

describe("interaction basis", () => {
  it("Helmert rows are orthonormal", () => {
    for (const c of [2, 3, 5]) {
      const basis = helmertBasis(c);
      for (let i = 0; i < c; i++)
        for (let j = 0; j < c; j++) {
          let dot = 0;
          for (let x = 0; x < c; x++) dot += basis[i * c + x]! * basis[j * c + x]!;
          expect(dot).toBeCloseTo(i === j ? 1 : 0, 12);
        }
    }
  });

  it("the tensor transform keeps the norm and inverts exactly; coefficient 0 is total / sqrt(D)", () => {
    const cardinalities = [3, 2, 4];
    const cells = Float64Array.from({ length: 24 }, (_, i) => Math.sin(i + 1));
    const copy = Float64Array.from(cells);
    interactionTransform(copy, cardinalities, false);
    const norm = (a: Float64Array) => a.reduce((s, x) => s + x * x, 0);
    expect(norm(copy)).toBeCloseTo(norm(cells), 10);
    expect(copy[0]).toBeCloseTo(cells.reduce((s, x) => s + x, 0) / Math.sqrt(24), 12);
    interactionTransform(copy, cardinalities, true);
    copy.forEach((x, i) => {
      expect(x).toBeCloseTo(cells[i]!, 12);
    });
  });
});

describe("estimateCalmPlus", () => {
  const n = 2 ** 14;
  const cardinalities = [3, 3, 2, 3, 2, 3, 3, 2];

  it("releases non-negative, consistent views and answers that are distributions", () => {
    const store = markovStore(seededRng(11), n, cardinalities, 0.7);
    const plan = planCalm({ schema: store.schema, n, eps: 0.3, k: 3 });
    // The non-negativity loop's default cap (30 rounds) is CALM's; here the "contrasts"
    // one-way prior needs 25 rounds, the default "hybrid" 39: a larger budget, same assertion.
    const synopsis = estimateCalmPlus(plan, simulateCalm(plan, store, seededRng(12)), {
      postProcessOptions: { maxRounds: 100 },
    });
    expect(synopsis.converged).toBe(true);
    for (const view of synopsis.views) for (const x of view.cells) expect(x).toBeGreaterThanOrEqual(-1e-12);
    // Every pair of views agrees on their common attributes (non-negative and consistent).
    expect(maxViewDisagreement(synopsis.views)).toBeLessThan(1e-6);
    // The fitted views (before non-negativity) are consistent by construction.
    const [f0, f1] = [synopsis.fittedViews[0]!, synopsis.fittedViews[1]!];
    const common = f0.attributes.filter((x) => f1.attributes.includes(x));
    const p0 = projectTable(f0, common).cells;
    const p1 = projectTable(f1, common).cells;
    p0.forEach((x, i) => {
      expect(x).toBeCloseTo(p1[i]!, 12);
    });
    const answer = synopsis.query([0, 3, 6]);
    expect(answer.cells.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 9);
    for (const x of answer.cells) expect(x).toBeGreaterThanOrEqual(0);
  });

  it("beats CALM on the same reports: SSE ratio >= 1.3 at eps = 0.2, paired difference at z >= 3", () => {
    // 12 seeded repetitions of a 3-way query workload on 8 attributes (2 or 3
    // categories), Markov-chain data, n = 2^14. Measured when written: ratio 1.67
    // at eps 0.2 (1.36 at eps 0.3, 1.09 at eps 0.5). Asserted: ratio of mean SSEs >= 1.3 and the paired
    // per-repetition improvement calm - plus has mean/SE >= 3 (z = 3, one-sided).
    const reps = 12;
    const differences: number[] = [];
    let calmTotal = 0;
    let plusTotal = 0;
    for (let rep = 0; rep < reps; rep++) {
      const store = markovStore(seededRng(deriveSeed(7, rep, 1)), n, cardinalities, 0.7);
      const plan = planCalm({ schema: store.schema, n, eps: 0.2, k: 3 });
      const aggregator = simulateCalm(plan, store, seededRng(deriveSeed(7, rep, 2)));
      const queries = randomQueries(seededRng(deriveSeed(7, rep, 3)), cardinalities.length, 3, 20);
      const truths = queries.map((q) => contingencyTable(store, q).cells);
      const score = (query: (q: number[]) => { cells: Float64Array }) =>
        queries.reduce((s, q, i) => s + sse(query(q).cells, truths[i]!), 0) / queries.length;
      const calm = score(estimateCalm(plan, aggregator).query);
      const plus = score(estimateCalmPlus(plan, aggregator).query);
      calmTotal += calm;
      plusTotal += plus;
      differences.push(calm - plus);
    }
    const mean = differences.reduce((s, x) => s + x, 0) / reps;
    const variance = differences.reduce((s, x) => s + (x - mean) ** 2, 0) / (reps - 1);
    const z = mean / Math.sqrt(variance / reps);
    expect(calmTotal / plusTotal).toBeGreaterThanOrEqual(1.3);
    expect(z).toBeGreaterThanOrEqual(3);
  });

  it('"maxent" interaction targets: closer 4-way views on chain data (paired z >= 3), unchanged with pairs only', () => {
    // A binary Markov chain with per-attribute parameters has pairs of varying
    // strength, skewed marginals and 3-/4-way coefficients that vary from set to set,
    // all implied by the pairs (no higher log-linear terms): the max-entropy extension
    // of a set's (r-1)-way marginals is its truth, the product of the one-way
    // marginals (plus the order's mean residual) is not. Views of l = 4 of 8
    // attributes (every pair pooled over ~3 views, a triple over ~1), eps 2,
    // n = 2^16, 6 seeded repetitions: mean SSE of the fitted (shrunk) views against the
    // true view marginals. Measured when written: 1.02e-3 (independence) vs 8.2e-4
    // (maxent) per view, lower in all 6 repetitions, paired z = 4.7. With l = 3 (pairs hardly better measured than triples) the
    // targets carry the pairs' noise and lose slightly: see the calm-core README.
    const stay = [0, 0.9, 0.2, 0.85, 0.5, 0.95, 0.1, 0.7];
    const p1 = [0.1, 0.4, 0.2, 0.5, 0.15, 0.3, 0.05, 0.25];
    const big = 2 ** 16;
    const reps = 6;
    const differences: number[] = [];
    for (let rep = 0; rep < reps; rep++) {
      const store = skewedChainStore(seededRng(deriveSeed(41, rep, 1)), big, stay, p1);
      const plan = planCalm({ schema: store.schema, n: big, eps: 2, k: 3 }, { l: 4 });
      const aggregator = simulateCalm(plan, store, seededRng(deriveSeed(41, rep, 2)));
      const truths = plan.views.map((view) => contingencyTable(store, view.attributes).cells);
      const score = (options: { interactionTarget: "independence" | "maxent" }) =>
        estimateCalmPlus(plan, aggregator, options).fittedViews.reduce(
          (s, view, v) => s + sse(view.cells, truths[v]!),
          0,
        ) / plan.views.length;
      differences.push(score({ interactionTarget: "independence" }) - score({ interactionTarget: "maxent" }));
    }
    const mean = differences.reduce((s, x) => s + x, 0) / reps;
    const variance = differences.reduce((s, x) => s + (x - mean) ** 2, 0) / (reps - 1);
    expect(mean / Math.sqrt(variance / reps)).toBeGreaterThanOrEqual(3);
    // With views of 2 attributes there is no order >= 3: both targets give the same views.
    const store = skewedChainStore(seededRng(43), n, stay, p1);
    const plan = planCalm({ schema: store.schema, n, eps: 1, k: 3 }, { l: 2 });
    const aggregator = simulateCalm(plan, store, seededRng(44));
    const a = estimateCalmPlus(plan, aggregator).views;
    const b = estimateCalmPlus(plan, aggregator, { interactionTarget: "independence" }).views;
    a.forEach((view, v) => {
      view.cells.forEach((x, i) => {
        expect(x).toBe(b[v]!.cells[i]);
      });
    });
  });

  it('oneWayEvidence "pairs": one-way marginals closer on skewed independent data (paired z >= 3)', () => {
    // Known answer: 8 independent attributes with skewed marginals (product data, so
    // every pair is exactly the product of its one-way marginals), pairwise views
    // (l = 2), OUE/GRR at eps 0.3, n = 2^14. Under independence a pair view's cells
    // measure a's marginal through b's: weighted by b's marginal, the pair coefficients
    // add sum_j beta_{b,j}^2 / tau^2 of precision to a's contrasts, about as much as
    // the view's own one-way coefficients for a partner with a 0.8/0.1/0.1 marginal.
    // Mean one-way SSE over the attributes, "one-way" vs "pairs", 8 seeded
    // repetitions. Measured when written: 3.45e-2 -> 2.15e-2 (ratio 1.61), lower in 7
    // of 8 repetitions, paired z = 3.66. Asserted: z >= 3 (one-sided) and ratio >= 1.2.
    const marginals = SKEWED_MARGINALS;
    const reps = 8;
    const differences: number[] = [];
    let oneWayTotal = 0;
    let pairsTotal = 0;
    for (let rep = 0; rep < reps; rep++) {
      const store = independentStore(seededRng(deriveSeed(51, rep, 1)), n, marginals);
      const plan = planCalm({ schema: store.schema, n, eps: 0.3, k: 3 }, { l: 2 });
      const aggregator = simulateCalm(plan, store, seededRng(deriveSeed(51, rep, 2)));
      const score = (oneWayEvidence: "one-way" | "pairs") => {
        const synopsis = estimateCalmPlus(plan, aggregator, { oneWayEvidence });
        return (
          marginals.reduce(
            (s, _, a) => s + sse(synopsis.query([a]).cells, contingencyTable(store, [a]).cells),
            0,
          ) / marginals.length
        );
      };
      const [oneWay, pairs] = [score("one-way"), score("pairs")];
      oneWayTotal += oneWay;
      pairsTotal += pairs;
      differences.push(oneWay - pairs);
    }
    const mean = differences.reduce((s, x) => s + x, 0) / reps;
    const variance = differences.reduce((s, x) => s + (x - mean) ** 2, 0) / (reps - 1);
    expect(mean / Math.sqrt(variance / reps)).toBeGreaterThanOrEqual(3);
    expect(oneWayTotal / pairsTotal).toBeGreaterThanOrEqual(1.2);
  });

  it('oneWayEvidence "pairs" on strongly dependent data: the between-source guard keeps the one-way SSE', () => {
    // A skewed binary chain copying its predecessor with probability 0.7-0.95: every
    // pair is far from independence, so the pairs' estimates of the one-way marginals
    // are biased, and at eps 2 the bias outweighs their precision. l = 2, n = 2^14,
    // 8 seeded repetitions, mean one-way SSE, "pairs" / "one-way". Measured when
    // written: 0.989 with the between-source variance B, 1.051 without it (B = 0).
    const stay = [0, 0.9, 0.8, 0.9, 0.7, 0.95, 0.85, 0.8];
    const p1 = [0.1, 0.3, 0.05, 0.2, 0.15, 0.4, 0.1, 0.25];
    const reps = 8;
    let oneWayTotal = 0;
    let pairsTotal = 0;
    for (let rep = 0; rep < reps; rep++) {
      const store = skewedChainStore(seededRng(deriveSeed(61, rep, 1)), n, stay, p1);
      const plan = planCalm({ schema: store.schema, n, eps: 2, k: 3 }, { l: 2 });
      const aggregator = simulateCalm(plan, store, seededRng(deriveSeed(61, rep, 2)));
      const score = (oneWayEvidence: "one-way" | "pairs") => {
        const synopsis = estimateCalmPlus(plan, aggregator, { oneWayEvidence });
        return p1.reduce(
          (s, _, a) => s + sse(synopsis.query([a]).cells, contingencyTable(store, [a]).cells),
          0,
        );
      };
      oneWayTotal += score("one-way");
      pairsTotal += score("pairs");
    }
    expect(pairsTotal / oneWayTotal).toBeLessThanOrEqual(1.02);
  });

  it('pairCenter "test": the pairs\' centre is 0 on independent data, kept on positively dependent data', () => {
    // Known answers: on independent attributes the pairs' true centre is 0 and the
    // estimate is noise, dropped unless it is two standard errors from 0 (about a 5%
    // test: asserted at most 2 of 8 seeded repetitions kept); on a binary chain copying
    // its predecessor with probability 0.7 every pair is positively dependent, the
    // centre stands out and is kept in all 8. eps 0.3, l = 2, n = 2^14. Measured when
    // written: kept 1 / 8 (independent; "always": |mu_2| 0.007-0.068, non-zero in all
    // 8) and 8 / 8 (dependent: mu_2 0.12-0.28).
    const marginals = SKEWED_MARGINALS;
    const binary = cardinalities.map(() => 2);
    let keptIndependent = 0;
    let keptDependent = 0;
    let alwaysNonZero = 0;
    for (let rep = 0; rep < 8; rep++) {
      const center = (store: ReturnType<typeof markovStore>, pairCenter: "test" | "always") => {
        const plan = planCalm({ schema: store.schema, n, eps: 0.3, k: 3 }, { l: 2 });
        const aggregator = simulateCalm(plan, store, seededRng(deriveSeed(71, rep, 2)));
        return estimateCalmPlus(plan, aggregator, { pairCenter }).shrinkage.find((o) => o.order === 2)!
          .center;
      };
      const independent = independentStore(seededRng(deriveSeed(71, rep, 1)), n, marginals);
      if (center(independent, "test") !== 0) keptIndependent++;
      if (center(independent, "always") !== 0) alwaysNonZero++;
      if (center(markovStore(seededRng(deriveSeed(71, rep, 3)), n, binary, 0.7), "test") > 0) keptDependent++;
    }
    expect(keptIndependent).toBeLessThanOrEqual(2);
    expect(alwaysNonZero).toBe(8);
    expect(keptDependent).toBe(8);
  });

  it("reports non-convergence of the non-negativity loop instead of hiding it", () => {
    const store = markovStore(seededRng(21), 4096, cardinalities, 0.7);
    const plan = planCalm({ schema: store.schema, n: 4096, eps: 0.3, k: 3 });
    const aggregator = simulateCalm(plan, store, seededRng(22));
    const synopsis = estimateCalmPlus(plan, aggregator, {
      shrinkage: "none",
      postProcessOptions: { maxRounds: 1 },
    });
    expect(synopsis.fittedViews.some((v) => v.cells.some((x) => x < 0))).toBe(true);
    expect(synopsis.converged).toBe(false);
    expect(synopsis.postProcess?.converged).toBe(false);
  });

  it("refuses a query table above its cap with the size it would need, and bad options", () => {
    const store = markovStore(seededRng(31), 2048, cardinalities, 0.7);
    const plan = planCalm({ schema: store.schema, n: 2048, eps: 1, k: 3 });
    const aggregator = simulateCalm(plan, store, seededRng(32));
    const synopsis = estimateCalmPlus(plan, aggregator, { maxQueryCells: 100 });
    expect(() => synopsis.query([0, 1, 3, 5, 6])).toThrow(CannotRunError);
    expect(() => synopsis.query([0, 1, 3, 5, 6])).toThrow(
      /needs a table of 243 cells, above maxQueryCells = 100/,
    );
    expect(synopsis.query([0, 1, 3, 5]).cells.length).toBe(81);
    expect(() => estimateCalmPlus(plan, aggregator, { shrinkage: "bogus" as never })).toThrow(
      InvalidParameterError,
    );
    expect(() => estimateCalmPlus(plan, aggregator, { maxQueryCells: 0 })).toThrow(/maxQueryCells/);
    expect(() => estimateCalmPlus(plan, aggregator, { variance: "exact" as never })).toThrow(
      /variance must be/,
    );
    expect(() => estimateCalmPlus(plan, aggregator, { interactionTarget: "pairs" as never })).toThrow(
      /interactionTarget must be/,
    );
    expect(() => estimateCalmPlus(plan, aggregator, { oneWayEvidence: "triples" as never })).toThrow(
      /oneWayEvidence must be/,
    );
    expect(() => estimateCalmPlus(plan, aggregator, { pairCenter: "never" as never })).toThrow(
      /pairCenter must be/,
    );
  });
});
