import type { CalmIntervalOptions, CalmIntervalTable } from "@calm-ldp/calm-core";
import { analyticIntervalTable, twoSidedZ } from "@calm-ldp/calm-core";
import type { MarginalTable } from "@calm-ldp/marginal-algebra";
import { finishAnswer } from "./answers.js";
import type { AnswerPostProcessing } from "./api.js";

/** Options of a query with an interval: `{ interval: 0.95 }`, optionally `covariance: true` (CALM's path options are ignored). */
export type IntervalOptions = Pick<CalmIntervalOptions, "interval" | "covariance">;

/** A released table with a confidence interval per cell (the same shape as CALM's). */
export type IntervalTable = CalmIntervalTable;

/**
 * What an analytic interval needs besides the noise of the answer: the caller
 * (`where`, for errors), the caller's options, the answer's linear map from the
 * method's cells (bit or group cells) onto the query's source cells, and the
 * released answer (the linear one after the method's post-processing).
 */
export interface IntervalAnswer {
  readonly where: string;
  readonly options: IntervalOptions;
  readonly linear: (cells: Float64Array) => MarginalTable;
  readonly released: (cells: Float64Array) => MarginalTable;
}

/**
 * @internal The {@link IntervalAnswer} of a `method.query` call whose released
 * answer is the linear one after the method's post-processing `post`. O(1).
 */
export function linearAnswer(
  method: string,
  options: IntervalOptions,
  linear: (cells: Float64Array) => MarginalTable,
  post: AnswerPostProcessing,
): IntervalAnswer {
  return {
    where: `${method}.query`,
    options,
    linear,
    released: (cells) => finishAnswer(linear(cells), post),
  };
}

/**
 * @internal The interval table of a linear answer: calm-core's
 * `analyticIntervalTable` at the z of `options.interval` (checked here), with
 * `covariance` only when the caller asked for it. O(cells).
 */
export function intervalOfAnswer(
  answer: IntervalAnswer,
  table: MarginalTable,
  center: Float64Array,
  variance: ArrayLike<number>,
  covariance: Float64Array | undefined,
): IntervalTable {
  const level = answer.options.interval as number;
  const z = twoSidedZ(level, answer.where);
  const asked = answer.options.covariance === true ? covariance : undefined;
  return analyticIntervalTable(table, level, z, center, variance, asked);
}

/**
 * @internal The users' partition term: when disjoint sets of the `n` users
 * estimate the parts of an answer whose truth is this population's table, its
 * covariance loses `(diag(f) - f f^T) / n`, f the non-negative part of `cells`
 * normalised (plug-in for the true fractions). In place on the `m x m`
 * `covariance` (m = cells.length); nothing when n = 0. O(m^2).
 */
export function subtractPartitionTerm(covariance: Float64Array, cells: ArrayLike<number>, n: number): void {
  if (n <= 0) return;
  const m = cells.length;
  let total = 0;
  for (let a = 0; a < m; a++) total += Math.max(0, cells[a]!);
  const share = (a: number) => (total > 0 ? Math.max(0, cells[a]!) / total : 0);
  for (let a = 0; a < m; a++)
    for (let b = 0; b < m; b++)
      covariance[a * m + b]! -= ((a === b ? share(a) : 0) - share(a) * share(b)) / n;
}

/**
 * @internal A covariance over bit cells decoded onto the source cells: decoding
 * keeps the cells of valid codes, so it selects rows and columns (`decode`
 * applied to each column, then to each row). O(size^2).
 */
export function decodeCovariance(
  bits: Float64Array,
  size: number,
  decode: (cells: Float64Array) => MarginalTable,
): Float64Array {
  const columns: Float64Array[] = [];
  for (let h = 0; h < size; h++) {
    const column = new Float64Array(size);
    for (let g = 0; g < size; g++) column[g] = bits[g * size + h]!;
    columns.push(decode(column).cells);
  }
  const cells = columns[0]!.length;
  const out = new Float64Array(cells * cells);
  for (let a = 0; a < cells; a++) {
    const row = new Float64Array(size);
    for (let h = 0; h < size; h++) row[h] = columns[h]![a]!;
    const decoded = decode(row).cells;
    for (let b = 0; b < cells; b++) out[a * cells + b] = decoded[b]!;
  }
  return out;
}
