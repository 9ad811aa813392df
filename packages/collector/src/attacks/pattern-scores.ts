import type { CalmPlan } from "@calm-ldp/calm-core";
import { InvalidParameterError } from "../errors.js";
import type { AttackTarget } from "./craft.js";

/**
 * A linear estimator of one released cell that reads whole bit patterns of unary
 * (OUE/SUE) views: `scores[v][y]` is the score of a report in view v whose bit
 * pattern is y, and the estimate is
 *
 *     f^_T = (1/m) sum_v (1/N_v) sum_{reports of view v} scores[v][pattern]
 *
 * (views drawn uniformly; N_v the view's reports). It is unbiased when
 * (1/m) sum_v E[scores[v][Y_v] | record] = 1[record in T] for every record, and a
 * share beta of maximal-gain fakes in uniformly drawn views shifts it by
 * beta (mean_v max_y scores[v][y] - f_T) ({@link patternWorstShift}). Pattern index:
 * bit (c_v - 1 - c) of y is cell c (cell 0 is the most significant bit), as
 * `bench/oue-estimator-bound.py --export` writes them. Analysis only: the collector
 * stores per-cell counts, which do not determine a view's pattern histogram, so
 * no estimate it serves can use this (docs/threat-model.md, "OUE views: what an
 * estimator can do").
 */
export type PatternScores = readonly (readonly number[])[];

/** The pattern index of a unary report given as words (bit c of the words is cell c). O(cells). */
export function reportPattern(words: Uint32Array, cells: number): number {
  let y = 0;
  for (let c = 0; c < cells; c++) if ((words[c >>> 5]! >>> (c & 31)) & 1) y |= 1 << (cells - 1 - c);
  return y;
}

/**
 * P(pattern y | true cell x) of a unary oracle over `cells` cells: bit x set with
 * probability p, every other bit with q, independently. Returns 2^cells
 * probabilities summing to 1. O(cells 2^cells); cells <= 16.
 */
export function unaryPatternLaw(p: number, q: number, cells: number, x: number): Float64Array {
  if (!(cells >= 1 && cells <= 16 && x >= 0 && x < cells))
    throw new InvalidParameterError(
      `unaryPatternLaw: need 1 <= cells <= 16 and 0 <= x < cells (got ${cells}, ${x})`,
    );
  const out = new Float64Array(2 ** cells);
  for (let y = 0; y < out.length; y++) {
    let prob = 1;
    for (let c = 0; c < cells; c++) {
      const r = c === x ? p : q;
      prob *= (y >>> (cells - 1 - c)) & 1 ? r : 1 - r;
    }
    out[y] = prob;
  }
  return out;
}

/** Cell of view `v` a record falls in (last attribute fastest, as calm-core). O(attributes of the view). */
function cellOf(plan: CalmPlan, v: number, record: readonly number[]): number {
  let cell = 0;
  for (const a of plan.views[v]!.attributes)
    cell = cell * plan.schema.attributes[a]!.labels.length + record[a]!;
  return cell;
}

/** Every record of the plan's schema (odometer order). O(product of cardinalities). */
function* records(plan: CalmPlan): Generator<number[]> {
  const cards = plan.schema.attributes.map((a) => a.labels.length);
  const x = cards.map(() => 0);
  for (;;) {
    yield [...x];
    let i = cards.length - 1;
    while (i >= 0 && ++x[i]! === cards[i]!) x[i--] = 0;
    if (i < 0) return;
  }
}

/**
 * The largest |E[f^_T | record] - 1[record in T]| over every record of the plan's
 * schema, by exact enumeration of records and bit patterns with the unary law of
 * (p, q) (0 up to rounding for an unbiased estimator). Every view must be unary
 * with at most 16 cells. O(records x m x cells 2^cells) (the probe: 256 x 28 x 64).
 */
export function patternBias(
  plan: CalmPlan,
  scores: PatternScores,
  target: AttackTarget,
  pq: { p: number; q: number },
): number {
  if (scores.length !== plan.m)
    throw new InvalidParameterError(`patternBias: ${scores.length} views of scores, plan has ${plan.m}`);
  // E[scores[v][Y] | cell x] per view and cell, once.
  const means = plan.views.map((view, v) =>
    Array.from({ length: view.cells }, (_, x) => {
      const law = unaryPatternLaw(pq.p, pq.q, view.cells, x);
      if (scores[v]!.length !== law.length)
        throw new InvalidParameterError(
          `patternBias: view ${v} has ${scores[v]!.length} scores, needs ${law.length}`,
        );
      return law.reduce((s, pr, y) => s + pr * scores[v]![y]!, 0);
    }),
  );
  let worst = 0;
  for (const record of records(plan)) {
    let mean = 0;
    for (let v = 0; v < plan.m; v++) mean += means[v]![cellOf(plan, v, record)]! / plan.m;
    const inT = target.attributes.every((a, i) => record[a] === target.values[i]) ? 1 : 0;
    worst = Math.max(worst, Math.abs(mean - inT));
  }
  return worst;
}

/** mean_v max_y scores[v][y]: a maximal-gain fake's mean score in a uniformly drawn view. O(sum of patterns). */
export function patternWorstShift(scores: PatternScores): number {
  return scores.reduce((s, row) => s + Math.max(...row), 0) / scores.length;
}

/** The pattern a maximal-gain fake sends in view `v`: argmax_y scores[v][y]. O(patterns). */
export function worstPattern(scores: PatternScores, v: number): number {
  const row = scores[v]!;
  return row.indexOf(Math.max(...row));
}

/**
 * f^_T from per-view pattern histograms (`histograms[v][y]` reports of view v with
 * pattern y): (1/m) sum_v (1/N_v) sum_y histograms[v][y] scores[v][y]; a view
 * without reports is an error. O(sum of patterns).
 */
export function patternEstimate(scores: PatternScores, histograms: readonly ArrayLike<number>[]): number {
  let total = 0;
  scores.forEach((row, v) => {
    const h = histograms[v]!;
    let n = 0;
    let sum = 0;
    for (let y = 0; y < row.length; y++) {
      n += h[y]!;
      sum += h[y]! * row[y]!;
    }
    if (n === 0) throw new InvalidParameterError(`patternEstimate: view ${v} has no reports`);
    total += sum / n;
  });
  return total / scores.length;
}
