import type { CalmPlan } from "@calm-ldp/calm-core";
import { wireError } from "./errors.js";

/** How a view's oracle reports travel: one value (GRR) or a bitset (OUE, SUE). */
export type WireKind = "value" | "bits";

/**
 * The wire kind of view `view` of `plan`, checking that the view exists and that
 * its oracle has a wire format; throws `WireFormatError` ("view" or "oracle")
 * naming `where` otherwise. O(1).
 */
export function wireKind(where: string, plan: CalmPlan, view: unknown): WireKind {
  if (typeof view !== "number" || !Number.isInteger(view) || view < 0 || view >= plan.views.length) {
    wireError(where, "view", `view must be an integer in [0, ${plan.views.length}) (got ${String(view)})`);
  }
  const oracle = plan.views[view]!.oracle;
  if (oracle === "grr") return "value";
  if (oracle === "oue" || oracle === "sue") return "bits";
  return wireError(where, "oracle", `view ${view} uses oracle ${oracle}, which has no wire format`);
}
