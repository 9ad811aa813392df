import { recordCellIndex } from "@calm-ldp/marginal-algebra";
import { cryptoRng, type Rng, uniformInt } from "@calm-ldp/random";
import type { CalmPlan, CalmReport } from "./api.js";
import { InvalidParameterError, InvalidRecordError } from "./errors.js";
import { planRuntime } from "./runtime.js";

let defaultRng: Rng | undefined;

/** Options of {@link calmReport}. */
export interface CalmReportOptions {
  /** Random source (default: one shared `cryptoRng()`, the platform's cryptographic generator). */
  rng?: Rng;
  /** The group the server assigned this user (required when `plan.assignment` is "assigned"). */
  view?: number;
}

/**
 * Client side of CALM (§4.1): pick the user's group uniformly at random (or take
 * the server's assignment), project her record onto that group's view (mixed-radix
 * cell index, ALGORITHMS.md §1) and perturb the cell with the view's oracle under
 * the full eps. Only the report leaves the device. O(d + cost of one perturbation).
 * Throws `InvalidRecordError` for a record outside the schema (nothing is reported).
 */
export function calmReport(
  plan: CalmPlan,
  record: ArrayLike<number>,
  options: CalmReportOptions = {},
): CalmReport {
  const d = plan.schema.attributes.length;
  if (!record || record.length !== d) {
    throw new InvalidRecordError(
      `calmReport: a record must have ${d} values, one per schema attribute (got ${record?.length})`,
    );
  }
  for (let a = 0; a < d; a++) {
    const v = record[a];
    const c = plan.schema.attributes[a]!.labels.length;
    if (!Number.isInteger(v) || v! < 0 || v! >= c) {
      throw new InvalidRecordError(
        `calmReport: value of attribute ${a} (${plan.schema.attributes[a]!.name}) must be an integer in [0, ${c}) (got ${v})`,
      );
    }
  }
  const rng = options.rng ?? (defaultRng ??= cryptoRng());
  let view: number;
  if (options.view !== undefined) {
    view = options.view;
    if (!Number.isInteger(view) || view < 0 || view >= plan.views.length) {
      throw new InvalidParameterError(
        `calmReport: view must be an integer in [0, ${plan.views.length}) (got ${view})`,
      );
    }
  } else {
    if (plan.assignment === "assigned")
      throw new InvalidParameterError(
        "calmReport: this plan assigns groups on the server; pass options.view",
      );
    view = uniformInt(rng, plan.views.length);
  }
  const runtime = planRuntime(plan);
  const cell = recordCellIndex(record, plan.views[view]!.attributes, runtime.viewCardinalities[view]!);
  return { view, report: runtime.oracles[view]!.perturb(cell, rng) };
}
