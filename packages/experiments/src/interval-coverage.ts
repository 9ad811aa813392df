import { type CalmPlanOptions, estimateCalm, planCalm, simulateCalm } from "@calm-ldp/calm-core";
import { contingencyTable, type RecordStore, randomQueries } from "@calm-ldp/marginal-algebra";
import { deriveSeed, seededRng } from "@calm-ldp/random";

/** Options of {@link calmIntervalCoverage}. */
export interface IntervalCoverageOptions {
  readonly store: RecordStore;
  readonly eps: number;
  /** Query size. */
  readonly k: number;
  /** Repetitions of the whole collection (count-level simulation). */
  readonly repetitions: number;
  /** Number of random k-way queries (the same in every repetition). */
  readonly queries: number;
  /** Confidence level (default 0.95). */
  readonly level?: number;
  readonly seed?: number;
  /** Plan options (e.g. `{ l: k }` so every k-way query is covered). */
  readonly plan?: CalmPlanOptions;
}

/** Measured coverage of CALM's intervals. */
export interface IntervalCoverage {
  /** Covered (cell, repetition) pairs / all pairs. */
  readonly coverage: number;
  /** The lowest per-cell coverage (over repetitions) among all cells of all queries. */
  readonly worstCell: number;
  readonly pairs: number;
  /** Mean interval width over all pairs (fractions). */
  readonly meanWidth: number;
  /** How many of the query answers took each path. */
  readonly analytic: number;
  readonly bootstrap: number;
  /** Answers with a bound-based interval (maximum-entropy answers). */
  readonly bounds: number;
  /** Per path: covered pairs / pairs and mean width over that path's pairs (NaN when the path did not occur). */
  readonly byMethod: Readonly<
    Record<"analytic" | "bootstrap" | "bounds", { coverage: number; meanWidth: number; pairs: number }>
  >;
  readonly l: number;
  readonly m: number;
}

/**
 * Coverage of `synopsis.query(q, { interval })` for CALM: the population is
 * fixed, each repetition redraws the groups and the oracles' noise
 * (`simulateCalm`, count-level) and asks the same random k-way queries; a pair
 * (cell, repetition) is covered when the cell's true fraction lies in
 * [lower, upper]. Cost: repetitions * (O(n l) simulation + one `estimateCalm` +
 * the queries).
 */
export function calmIntervalCoverage(options: IntervalCoverageOptions): IntervalCoverage {
  const { store, eps, k, repetitions, queries: count } = options;
  const level = options.level ?? 0.95;
  const seed = options.seed ?? 0;
  const d = store.schema.attributes.length;
  const plan = planCalm({ schema: store.schema, n: store.size, eps, k }, options.plan ?? {});
  const queries = randomQueries(seededRng(deriveSeed(seed, 1)), d, k, count);
  // The true cells, as fractions (contingencyTable's default unit).
  const truths = queries.map((q) => contingencyTable(store, q).cells);
  const hits = truths.map((t) => new Uint32Array(t.length));
  // Per interval path: answers, and over their (cell, repetition) pairs the covered ones and the width.
  const tallies = {
    analytic: { answers: 0, covered: 0, width: 0, pairs: 0 },
    bootstrap: { answers: 0, covered: 0, width: 0, pairs: 0 },
    bounds: { answers: 0, covered: 0, width: 0, pairs: 0 },
  };
  for (let r = 0; r < repetitions; r++) {
    const aggregator = simulateCalm(plan, store, seededRng(deriveSeed(seed, 2, r)));
    const synopsis = estimateCalm(plan, aggregator);
    queries.forEach((q, i) => {
      const answer = synopsis.query(q, { interval: level, seed: deriveSeed(seed, 3, r) });
      const tally = tallies[answer.intervalMethod];
      tally.answers++;
      truths[i]!.forEach((x, a) => {
        tally.pairs++;
        tally.width += answer.upper[a]! - answer.lower[a]!;
        if (x >= answer.lower[a]! && x <= answer.upper[a]!) {
          tally.covered++;
          hits[i]![a]!++;
        }
      });
    });
  }
  let worst = 1;
  for (const h of hits) for (const x of h) worst = Math.min(worst, x / repetitions);
  const all = Object.values(tallies);
  const total = (field: "covered" | "width" | "pairs") => all.reduce((sum, t) => sum + t[field], 0);
  const pairs = total("pairs");
  return {
    coverage: total("covered") / pairs,
    worstCell: worst,
    pairs,
    meanWidth: total("width") / pairs,
    analytic: tallies.analytic.answers,
    bootstrap: tallies.bootstrap.answers,
    bounds: tallies.bounds.answers,
    byMethod: Object.fromEntries(
      Object.entries(tallies).map(([method, t]) => [
        method,
        { coverage: t.covered / t.pairs, meanWidth: t.width / t.pairs, pairs: t.pairs },
      ]),
    ) as unknown as IntervalCoverage["byMethod"],
    l: plan.l,
    m: plan.views.length,
  };
}
