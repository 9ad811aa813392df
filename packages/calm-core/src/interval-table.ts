import type { MarginalTable } from "@calm-ldp/marginal-algebra";
import { type CalmIntervalTable, normalInterval } from "./interval.js";

/**
 * The released table of an analytic (normal-approximation) interval: `table`
 * (the released answer) with, per cell, `center -+ z sqrt(variance)` clipped to
 * [0, 1] ({@link normalInterval}), the level, and `covariance` when given. Used by
 * CALM's analytic path and the baselines' linear methods. O(cells).
 */
export function analyticIntervalTable(
  table: MarginalTable,
  level: number,
  z: number,
  center: Float64Array,
  variance: ArrayLike<number>,
  covariance?: Float64Array,
): CalmIntervalTable {
  const { lower, upper, standardError } = normalInterval(center, variance, z);
  // Spelled out, not spread (this is on the per-query path of calm-core's interval benchmark).
  const out: CalmIntervalTable = {
    attributes: table.attributes,
    cardinalities: table.cardinalities,
    cells: table.cells,
    unit: table.unit,
    level,
    lower,
    upper,
    standardError,
    intervalMethod: "analytic",
    center,
    replicates: 0,
  };
  return covariance ? { ...out, covariance } : out;
}
