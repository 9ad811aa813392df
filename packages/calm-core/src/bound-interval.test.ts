import { contingencyTable, randomQueries } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { boundInterval } from "./bound-interval.js";
import { estimateCalm } from "./estimate.js";
import { normalQuantile } from "./normal-quantile.js";
import { planCalm } from "./plan.js";
import { simulateCalm } from "./simulate.js";
import { markovStore } from "./test-support.js";

/** Exact marginal of a table (fractions) on a subset of its attributes, for noise-free checks. */
function exactMarginal(cells: Float64Array, cards: readonly number[], query: readonly number[]) {
  return (attributes: readonly number[]) => {
    const positions = attributes.map((a) => query.indexOf(a));
    const size = positions.reduce((s, p) => s * cards[p]!, 1);
    const center = new Float64Array(size);
    cells.forEach((x, cell) => {
      const digits: number[] = [];
      let rest = cell;
      for (let p = cards.length - 1; p >= 0; p--) {
        digits[p] = rest % cards[p]!;
        rest = Math.floor(rest / cards[p]!);
      }
      center[positions.reduce((b, p) => b * cards[p]! + digits[p]!, 0)] += x;
    });
    return { center, variance: new Float64Array(size), covariance: new Float64Array(size * size) };
  };
}

describe("boundInterval (Fréchet bounds widened by noise)", () => {
  it("with exact marginals, every cell of random tables lies in its bounds, and the bounds are the classic ones", () => {
    const rng = seededRng(3);
    const cards = [2, 3, 2];
    const query = [0, 1, 2];
    for (let t = 0; t < 200; t++) {
      const cells = Float64Array.from({ length: 12 }, () => rng.nextFloat() ** 3);
      const total = cells.reduce((s, x) => s + x, 0);
      for (let a = 0; a < 12; a++) cells[a]! /= total;
      const views = [
        [0, 1, 5],
        [1, 2],
        [0, 2, 4],
      ];
      const result = boundInterval(query, cards, views, 0.95, exactMarginal(cells, cards, query));
      const m = exactMarginal(cells, cards, query);
      const m01 = m([0, 1]).center;
      const m12 = m([1, 2]).center;
      const m02 = m([0, 2]).center;
      const m1 = m([1]).center;
      cells.forEach((x, a) => {
        const [i, j, l] = [Math.floor(a / 6), Math.floor(a / 2) % 3, a % 2];
        expect(x).toBeGreaterThanOrEqual(result.lower[a]! - 1e-12);
        expect(x).toBeLessThanOrEqual(result.upper[a]! + 1e-12);
        expect(result.upper[a]!).toBeCloseTo(Math.min(m01[i * 3 + j]!, m12[j * 2 + l]!, m02[i * 2 + l]!), 12);
        // One of the chains: m01 + m12 - m1.
        expect(result.lower[a]!).toBeGreaterThanOrEqual(m01[i * 3 + j]! + m12[j * 2 + l]! - m1[j]! - 1e-12);
      });
      // 3 maximal parts (upper and lower) + the singletons C = {0}, {1}, {2} (upper).
      expect(result.events).toBe(9);
      expect(result.z).toBeCloseTo(normalQuantile(1 - 0.05 / 9), 10);
    }
  });

  it("an attribute no view holds leaves the lower bound at 0; no covered part leaves [0, 1]", () => {
    const cells = Float64Array.from([0.1, 0.2, 0.3, 0.4]);
    const partial = boundInterval([0, 1], [2, 2], [[0, 2]], 0.95, exactMarginal(cells, [2, 2], [0, 1]));
    expect([...partial.lower]).toEqual([0, 0, 0, 0]);
    expect(partial.upper[0]).toBeCloseTo(0.3, 12);
    const none = boundInterval([0, 1], [2, 2], [[2, 3]], 0.95, exactMarginal(cells, [2, 2], [0, 1]));
    expect([...none.lower, ...none.upper]).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
  });

  it("CALM maximum-entropy answers: coverage >= 95% where the model is wrong (Markov data, 3-way queries from an l = 2 plan; 200 reps)", () => {
    // The maxent fit of pairwise views is not the Markov chain's 3-way table, so a
    // noise-only interval under-covers here (the last session's bootstrap: 0.40-0.65 on Adult).
    const n = 2 ** 14;
    const store = markovStore(seededRng(11), n, [2, 3, 2, 2, 3, 2], 0.8);
    const plan = planCalm({ schema: store.schema, n, eps: 2, k: 3 }, { l: 2 });
    const queries = randomQueries(seededRng(12), 6, 3, 4);
    const truths = queries.map((q) => contingencyTable(store, q).cells);
    let pairs = 0;
    let covered = 0;
    let width = 0;
    let maxentMiss = 0;
    const reps = 200;
    for (let r = 0; r < reps; r++) {
      const synopsis = estimateCalm(plan, simulateCalm(plan, store, seededRng(13, r)));
      queries.forEach((q, i) => {
        const answer = synopsis.query(q, { interval: 0.95 });
        expect(answer.intervalMethod).toBe("bounds");
        truths[i]!.forEach((x, a) => {
          pairs++;
          width += answer.upper[a]! - answer.lower[a]!;
          if (x >= answer.lower[a]! && x <= answer.upper[a]!) covered++;
          if (Math.abs(answer.cells[a]! - x) > 0.02) maxentMiss++;
        });
      });
    }
    const coverage = covered / pairs;
    if (process.env.CALM_VERBOSE)
      console.log(
        `bounds coverage ${coverage.toFixed(4)} over ${pairs} pairs, mean width ${(width / pairs).toFixed(3)}, maxent off by > 0.02 in ${(maxentMiss / pairs).toFixed(3)}`,
      );
    // Sound (Bonferroni over the bounding marginals): at least the level, up to sampling
    // error of the coverage estimate (sd at 0.95 over these pairs ~ 0.0024 if independent; z = 4).
    expect(coverage).toBeGreaterThanOrEqual(0.95 - 4 * Math.sqrt((0.95 * 0.05) / pairs));
    // The model is wrong here (so the test means something): maxent misses cells by > 0.02 often.
    expect(maxentMiss / pairs).toBeGreaterThan(0.05);
  });
});
