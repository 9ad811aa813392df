import { recordCellIndex } from "@calm-ldp/marginal-algebra";
import { type Rng, uniformInt } from "@calm-ldp/random";
import type { CalmPlan, CalmReport } from "./api.js";
import { InvalidParameterError, InvalidRecordError } from "./errors.js";

/**
 * @internal Throw `InvalidRecordError` (naming `where`) unless `record` has one
 * integer value per schema attribute, each in [0, cardinality). O(d).
 */
export function checkCalmRecord(plan: CalmPlan, record: ArrayLike<number>, where: string): void {
  const attributes = plan.schema.attributes;
  const d = attributes.length;
  if (!record || record.length !== d) {
    throw new InvalidRecordError(
      `${where}: a record must have ${d} values, one per schema attribute (got ${record?.length})`,
    );
  }
  for (let a = 0; a < d; a++) {
    const v = record[a]!;
    const c = attributes[a]!.labels.length;
    if (!Number.isInteger(v) || v < 0 || v >= c) {
      throw new InvalidRecordError(
        `${where}: value of attribute ${a} (${attributes[a]!.name}) must be an integer in [0, ${c}) (got ${v})`,
      );
    }
  }
}

/** @internal The per-view parts the client step runs: one oracle and the attribute cardinalities per view. */
export interface CalmViewRuntime {
  readonly oracles: readonly { perturb(cell: number, rng: Rng): unknown }[];
  readonly viewCardinalities: readonly (readonly number[])[];
}

/**
 * @internal CALM's client step (§4.1) with the views' oracles given, so that
 * calm-core (the oracle registry) and @calm-ldp/client (only the oracles a
 * browser bundle needs) run the same code: validate the record, take the given
 * view or draw the group uniformly (`uniformInt(rng, m)`), project the record
 * onto the view (mixed-radix cell) and perturb that cell with the view's oracle.
 * O(d + cost of one perturbation).
 */
export function calmReportWith(
  runtime: CalmViewRuntime,
  plan: CalmPlan,
  record: ArrayLike<number>,
  rng: Rng,
  view: number | undefined,
  where: string,
): CalmReport {
  checkCalmRecord(plan, record, where);
  if (view !== undefined) {
    if (!Number.isInteger(view) || view < 0 || view >= plan.views.length)
      throw new InvalidParameterError(
        `${where}: view must be an integer in [0, ${plan.views.length}) (got ${view})`,
      );
  } else {
    if (plan.assignment === "assigned")
      throw new InvalidParameterError(
        `${where}: this plan assigns groups on the server; pass the assigned view`,
      );
    view = uniformInt(rng, plan.views.length);
  }
  const cell = recordCellIndex(record, plan.views[view]!.attributes, runtime.viewCardinalities[view]!);
  return { view, report: runtime.oracles[view]!.perturb(cell, rng) };
}
