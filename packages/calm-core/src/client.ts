import { defaultCryptoRng, type Rng } from "@calm-ldp/random";
import type { CalmPlan, CalmReport } from "./api.js";
import { calmReportWith } from "./client-step.js";
import { planRuntime } from "./runtime.js";

/** Options of {@link calmReport}. */
export interface CalmReportOptions {
  /** Random source (default: random's `defaultCryptoRng()`, the platform's cryptographic generator). */
  rng?: Rng;
  /** The group the server assigned this user (required when `plan.assignment` is "assigned"). */
  view?: number;
}

/**
 * Client side of CALM (§4.1): pick the user's group uniformly at random (or take
 * the server's assignment), project her record onto that group's view (mixed-radix
 * cell index, ../../../docs/algorithms.md#notation) and perturb the cell with the view's oracle under
 * the full eps. Only the report leaves the device. O(d + cost of one perturbation).
 * Throws `InvalidRecordError` for a record outside the schema (nothing is reported).
 */
export function calmReport(
  plan: CalmPlan,
  record: ArrayLike<number>,
  options: CalmReportOptions = {},
): CalmReport {
  const rng = options.rng ?? defaultCryptoRng();
  return calmReportWith(planRuntime(plan), plan, record, rng, options.view, "calmReport");
}
