import type { MarginalSynopsis, MarginalTable } from "./api.js";
import { fail } from "./errors.js";

type Cells = MarginalTable | ArrayLike<number>;

function cellsOf(where: string, estimate: Cells, truth: Cells): [ArrayLike<number>, ArrayLike<number>] {
  const a = "cells" in estimate ? estimate.cells : estimate;
  const b = "cells" in truth ? truth.cells : truth;
  if ("cells" in estimate && "cells" in truth) {
    if (estimate.attributes.join(",") !== truth.attributes.join(",")) {
      fail(
        where,
        `tables must be over the same attributes [${truth.attributes.join(", ")}]`,
        estimate.attributes,
      );
    }
    if (estimate.unit !== truth.unit)
      fail(where, `tables must have the same unit (${truth.unit})`, estimate.unit);
  }
  if (a.length !== b.length)
    fail(where, `both tables must have the same number of cells (${b.length})`, a.length);
  return [a, b];
}

/**
 * Sum of squared errors `sum_cells (T - M)^2` (CALM's metric, ../../../docs/algorithms.md#notation),
 * in the tables' unit (use fractions to compare with the papers). Takes tables
 * (checked to be over the same attributes and unit) or bare cell arrays. O(cells).
 */
export function sse(estimate: Cells, truth: Cells): number {
  const [a, b] = cellsOf("sse", estimate, truth);
  let sum = 0;
  for (let u = 0; u < a.length; u++) {
    const e = a[u]! - b[u]!;
    sum += e * e;
  }
  return sum;
}

/** L1 distance `sum_cells |T - M|`. O(cells). */
export function l1(estimate: Cells, truth: Cells): number {
  const [a, b] = cellsOf("l1", estimate, truth);
  let sum = 0;
  for (let u = 0; u < a.length; u++) sum += Math.abs(a[u]! - b[u]!);
  return sum;
}

/**
 * Total variation distance `0.5 * sum_cells |T - M|` (Cormode et al.'s metric,
 * ../../../docs/algorithms.md#notation); in [0, 1] for two distributions. O(cells).
 */
export function tvd(estimate: Cells, truth: Cells): number {
  const [a, b] = cellsOf("tvd", estimate, truth);
  let sum = 0;
  for (let u = 0; u < a.length; u++) sum += Math.abs(a[u]! - b[u]!);
  return 0.5 * sum;
}

/**
 * Mean SSE and mean TVD of a synopsis' answers over `queries` against the true
 * marginals `truths` (same order, fractions): the two papers' accuracy figures
 * for one run. NaN for no query. O(the queries' cost + their cells).
 */
export function meanAnswerErrors(
  synopsis: MarginalSynopsis,
  queries: readonly (readonly number[])[],
  truths: readonly MarginalTable[],
): { sse: number; tvd: number } {
  let sseSum = 0;
  let tvdSum = 0;
  queries.forEach((query, i) => {
    const answer = synopsis.query(query).cells;
    sseSum += sse(answer, truths[i]!.cells);
    tvdSum += tvd(answer, truths[i]!.cells);
  });
  return { sse: sseSum / queries.length, tvd: tvdSum / queries.length };
}

/** Largest absolute cell error `max_cells |T - M|` (0 for empty tables). O(cells). */
export function maxAbsError(estimate: Cells, truth: Cells): number {
  const [a, b] = cellsOf("maxAbsError", estimate, truth);
  let worst = 0;
  for (let u = 0; u < a.length; u++) {
    const e = Math.abs(a[u]! - b[u]!);
    if (e > worst) worst = e;
  }
  return worst;
}
