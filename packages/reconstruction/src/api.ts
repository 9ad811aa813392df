import type { MarginalTable } from "@calm-ldp/marginal-algebra";

/** Options of `fitIpf` and `maxEntropy`. */
export interface IpfOptions {
  /**
   * Stop when, over a whole sweep, every constraint cell is matched to within
   * `tolerance * |total|` (default 1e-9; for fractions, absolute 1e-9).
   */
  readonly tolerance?: number;
  /** Cap on sweeps (one sweep scales the table to every constraint once). Default 1000. */
  readonly maxIterations?: number;
}

/** Options of `maxEntropy`. */
export interface MaxEntropyOptions extends IpfOptions {
  /**
   * Cardinality of every attribute, by attribute index (e.g. `schemaCardinalities(schema)`).
   * Needed only for query attributes that no view contains (they come out uniform).
   */
  readonly cardinalities?: readonly number[];
}

/** What `fitIpf` returns. */
export interface IpfResult {
  /** The fitted table: non-negative, with the constraints' common total. */
  readonly table: MarginalTable;
  /** Sweeps run. */
  readonly iterations: number;
  /** Worst |projection - target| over constraints and cells in the returned table (table unit). */
  readonly maxResidual: number;
  /** True when the tolerance was reached. */
  readonly converged: boolean;
  /**
   * True when the residual stopped improving before the tolerance was reached (over
   * 10 sweeps it fell by less than 0.1%): the signature of constraints that no table
   * satisfies. Fitting stops early then.
   */
  readonly stalled: boolean;
  /**
   * True when the fitted table's total was off the constraints' mean total (only
   * with inconsistent constraints) and was rescaled, or, when conflicting zeros left
   * nothing, replaced by the uniform table.
   */
  readonly totalRestored: boolean;
}

/** What `maxEntropy` returns: the table and its diagnostics. */
export interface MaxEntropyResult extends IpfResult {
  /** "projection" when one view contains the query (answered by projecting it), else "ipf". */
  readonly method: "projection" | "ipf";
  /** The constraint attribute sets used: the maximal intersections of the views with the query. */
  readonly constraints: readonly (readonly number[])[];
  /**
   * Largest disagreement between the constraints before fitting (table unit): between
   * two constraints' targets on their shared attributes (the empty set included, i.e.
   * totals), and between views that give the same constraint. 0 up to rounding for
   * consistent views.
   */
  readonly maxDisagreement: number;
  /** Negative target mass set to 0 before fitting (the targets are then rescaled to their total). */
  readonly clippedMass: number;
  /**
   * True when the constraints were found mutually inconsistent: `maxDisagreement`
   * above `tolerance * |total|`, or fitting stalled. The table is still a
   * non-negative table with the common total (a compromise between constraints).
   */
  readonly inconsistent: boolean;
}
