import { createTable, type MarginalTable, projectionMap, validateTable } from "@calm-ldp/marginal-algebra";
import type { IpfOptions, IpfResult } from "./api.js";
import { fail } from "./errors.js";

/** Sweeps between two checks of progress, and the least relative progress that is not a stall. */
const STALL_WINDOW = 10;
const STALL_RATIO = 0.999;

/** @internal Validated tolerance and iteration cap. */
export function ipfSettings(
  where: string,
  options: IpfOptions,
): { tolerance: number; maxIterations: number } {
  const tolerance = options.tolerance ?? 1e-9;
  const maxIterations = options.maxIterations ?? 1000;
  if (!(tolerance > 0) || !Number.isFinite(tolerance))
    fail(where, "tolerance must be a finite number > 0", tolerance);
  if (!Number.isInteger(maxIterations) || maxIterations < 1)
    fail(where, "maxIterations must be an integer >= 1", maxIterations);
  return { tolerance, maxIterations };
}

/** Positions in sorted `big` of the members of sorted `small`, or null when small ⊄ big. */
function positionsIn(small: readonly number[], big: readonly number[]): number[] | null {
  const out: number[] = [];
  let j = 0;
  for (const a of small) {
    while (j < big.length && big[j]! < a) j++;
    if (big[j] !== a) return null;
    out.push(j++);
  }
  return out;
}

/**
 * Iterative proportional fitting (../../../docs/algorithms.md#answering-a-query; Deming and Stephan, 1940):
 * the table over `attributes` (ascending, with `cardinalities`) of maximum entropy
 * among those whose projections equal the constraint tables. Start uniform with
 * the constraints' mean total; a sweep takes each constraint S in turn, projects
 * the table onto S (`P`) and multiplies every cell u by `target[u_S] / P[u_S]`
 * (0 where P is 0). Stops when a whole sweep saw every residual `|P - target|` at
 * most `tolerance * |total|` (converged), when over 10 sweeps the worst residual
 * fell by less than 0.1% (stalled: the constraints are inconsistent), or after
 * `maxIterations` sweeps.
 *
 * Constraints must be over subsets of `attributes` with the same cardinalities,
 * share one unit and have non-negative cells. The result is non-negative with the
 * constraints' mean total: when conflicting constraints leave another total it is
 * rescaled, and when their zeros empty the table it falls back to uniform
 * (`totalRestored`). Cost O(|V_A| * #constraints) per sweep, plus O(|V_A|) per
 * constraint to build its index map.
 */
export function fitIpf(
  attributes: readonly number[],
  cardinalities: readonly number[],
  constraints: readonly MarginalTable[],
  options: IpfOptions = {},
): IpfResult {
  const { tolerance, maxIterations } = ipfSettings("fitIpf", options);
  if (constraints.length === 0) fail("fitIpf", "at least one constraint is needed", 0);
  const unit = constraints[0]!.unit;
  const table = createTable(attributes, cardinalities, { unit });
  const maps: Uint32Array[] = [];
  let total = 0;
  constraints.forEach((constraint, k) => {
    validateTable(constraint, "fitIpf");
    if (constraint.unit !== unit)
      fail("fitIpf", `every constraint must have the unit of constraint 0 (${unit})`, constraint.unit);
    const positions = positionsIn(constraint.attributes, table.attributes);
    if (positions === null)
      fail(
        "fitIpf",
        `constraint ${k} must be over a subset of [${table.attributes.join(", ")}]`,
        constraint.attributes,
      );
    positions.forEach((p, i) => {
      if (table.cardinalities[p] !== constraint.cardinalities[i]) {
        fail(
          "fitIpf",
          `constraint ${k} must give attribute ${table.attributes[p]} cardinality ${table.cardinalities[p]}`,
          constraint.cardinalities[i],
        );
      }
    });
    for (const x of constraint.cells) {
      if (x < 0) fail("fitIpf", `constraint ${k} must have non-negative cells`, x);
      total += x;
    }
    maps.push(projectionMap(table.cardinalities, positions));
  });
  total /= constraints.length;
  return runIpf(table, constraints, maps, total, tolerance, maxIterations);
}

/** @internal The IPF loop on prepared maps (see {@link fitIpf}). */
export function runIpf(
  table: MarginalTable,
  constraints: readonly MarginalTable[],
  maps: readonly Uint32Array[],
  total: number,
  tolerance: number,
  maxIterations: number,
): IpfResult {
  const cells = table.cells;
  const n = cells.length;
  cells.fill(total / n);
  const bound = tolerance * Math.abs(total);
  const count = constraints.length;
  let largest = 0;
  for (const c of constraints) largest = Math.max(largest, c.cells.length);
  // factors: the current constraint's scaling; ahead: the next constraint's projection,
  // accumulated while scaling (one pass over the table per constraint).
  let factors = new Float64Array(largest);
  let ahead = new Float64Array(largest);
  {
    const map = maps[0]!;
    for (let u = 0; u < n; u++) factors[map[u]] += cells[u];
  }
  const history: number[] = [];
  let iterations = 0;
  let converged = false;
  let stalled = false;
  while (iterations < maxIterations) {
    iterations++;
    let worst = 0;
    for (let k = 0; k < count; k++) {
      const target = constraints[k]!.cells;
      const map = maps[k]!;
      const size = target.length;
      // `factors` holds the projection onto constraint k: turn it into scale factors.
      for (let c = 0; c < size; c++) {
        const p = factors[c];
        const residual = Math.abs(p - target[c]);
        if (residual > worst) worst = residual;
        factors[c] = p > 0 ? target[c] / p : 0;
      }
      const nextMap = maps[k + 1 === count ? 0 : k + 1]!;
      ahead.fill(0, 0, constraints[k + 1 === count ? 0 : k + 1]!.cells.length);
      for (let u = 0; u < n; u++) {
        const value = cells[u] * factors[map[u]];
        cells[u] = value;
        ahead[nextMap[u]] += value;
      }
      const swap = factors;
      factors = ahead;
      ahead = swap;
    }
    history.push(worst);
    if (worst <= bound) {
      converged = true;
      break;
    }
    if (iterations > STALL_WINDOW && worst > STALL_RATIO * history[iterations - 1 - STALL_WINDOW]!) {
      stalled = true;
      break;
    }
  }
  // Conflicting zeros can empty the table, and cycling between inconsistent
  // constraints leaves the last one's total: restore the common total (uniform if
  // nothing is left).
  let sum = 0;
  for (let u = 0; u < n; u++) sum += cells[u];
  let totalRestored = false;
  if (!(sum > 0) || !Number.isFinite(sum)) {
    cells.fill(total / n);
    totalRestored = true;
  } else if (Math.abs(sum - total) > 1e-12 * Math.abs(total)) {
    const scale = total / sum;
    for (let u = 0; u < n; u++) cells[u] *= scale;
    totalRestored = true;
  }
  return {
    table,
    iterations,
    maxResidual: worstResidual(cells, constraints, maps, ahead),
    converged,
    stalled,
    totalRestored,
  };
}

/** Worst |projection - target| over constraints and cells. O(|V_A| * #constraints). */
function worstResidual(
  cells: Float64Array,
  constraints: readonly MarginalTable[],
  maps: readonly Uint32Array[],
  projection: Float64Array,
): number {
  let worst = 0;
  for (let k = 0; k < constraints.length; k++) {
    const target = constraints[k]!.cells;
    const map = maps[k]!;
    projection.fill(0, 0, target.length);
    for (let u = 0; u < cells.length; u++) projection[map[u]] += cells[u];
    for (let c = 0; c < target.length; c++) worst = Math.max(worst, Math.abs(projection[c] - target[c]));
  }
  return worst;
}
