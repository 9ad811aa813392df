import { estimateCovariance } from "@calm-ldp/calm-core";
import type { FrequencyOracle } from "@calm-ldp/frequency-oracles";
import type { IntervalAnswer, IntervalTable } from "./analytic-interval.js";
import { decodeCovariance, intervalOfAnswer, subtractPartitionTerm } from "./analytic-interval.js";
import { marginalizeMixed, type QueryInTable } from "./marginalize.js";

/** One group used by a query: its unbiased table (over its cells or codes) holding the query, its reports and oracle. @internal */
export interface UsedGroup extends QueryInTable {
  readonly cells: Float64Array;
  readonly reports: number;
  readonly oracle: FrequencyOracle;
}

/**
 * Analytic interval of a grouped method (AM, MargRR, MargPS): the answer is the
 * mean over the u groups containing the query of their tables' projections,
 * linear in the oracles' counts. Per group (N_g reports, plug-in f = its table
 * clipped and normalised) calm-core's `estimateCovariance` gives Cov = oracle
 * noise (GRR multinomial; unary oracles diagonal) + (diag(f) - f f^T) / N_g; the
 * groups' noises are independent and their sampling errors those of a random
 * partition, so
 *   Cov(answer) = u^-2 sum_g P_g Cov_g P_g^T - (diag(f_q) - f_q f_q^T) / n,
 * then decoded (valid codes' rows and columns) for the binary-encoded methods.
 * Interval: linear answer +- z SE clipped to [0, 1]. Cost O(sum_g |g| + u |q|^2).
 */
export function groupInterval(
  used: readonly UsedGroup[],
  size: number,
  population: number,
  answer: IntervalAnswer,
): IntervalTable {
  const u = used.length;
  const sum = new Float64Array(size);
  const part = new Float64Array(size);
  const cov = new Float64Array(size * size);
  for (const group of used) {
    marginalizeMixed(group.cells, group.radices, group.positions, part);
    for (let a = 0; a < size; a++) sum[a]! += part[a]! / u;
    const fitted = group.cells.map((x) => Math.max(0, x));
    const mass = fitted.reduce((s, x) => s + x, 0);
    if (mass > 0) for (let i = 0; i < fitted.length; i++) fitted[i]! /= mass;
    else fitted.fill(1 / fitted.length);
    const { diag, rank1 } = estimateCovariance({ fitted, reports: group.reports, oracle: group.oracle });
    marginalizeMixed(diag, group.radices, group.positions, part);
    for (let a = 0; a < size; a++) cov[a * size + a]! += part[a]! / (u * u);
    for (const vector of rank1) {
      marginalizeMixed(vector, group.radices, group.positions, part);
      for (let a = 0; a < size; a++)
        for (let b = 0; b < size; b++) cov[a * size + b]! -= (part[a]! * part[b]!) / (u * u);
    }
  }
  subtractPartitionTerm(cov, sum, population);
  const center = answer.linear(Float64Array.from(sum)).cells;
  const covariance = decodeCovariance(cov, size, answer.linear);
  const cells = center.length;
  const variance = center.map((_, a) => covariance[a * cells + a]!);
  return intervalOfAnswer(answer, answer.released(Float64Array.from(sum)), center, variance, covariance);
}
