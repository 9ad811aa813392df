import { randomUUID } from "node:crypto";
import { type CalmPlan, planCalm } from "@calm-ldp/calm-core";
import { readPlan } from "@calm-ldp/client";
import { createSchema } from "@calm-ldp/marginal-algebra";
import type { RoundRequest, StoredRound } from "./api.js";
import { reject } from "./errors.js";

/** Largest view (cells) a collector plans: a unary report stores one row per supported cell. */
export const MAX_VIEW_CELLS = 4096;

/**
 * Plan a new round from an admin's request (already shape-checked by the route's
 * JSON schema): build the schema, run CALM's planner (Algorithm 1, views, adaptive
 * GRR/OUE; calm-core `planCalm`), check the plan is one clients can run
 * (`readPlan` of @calm-ldp/client) with views of at most {@link MAX_VIEW_CELLS}
 * cells, and give the round a random UUID. Throws `RequestRejectedError` (400,
 * "invalid-round") naming the problem. O(planning).
 */
export function planRound(request: RoundRequest, now: Date = new Date()): Omit<StoredRound, "no"> {
  let plan: CalmPlan;
  try {
    const schema = createSchema(request.schema.attributes);
    if (request.k > schema.attributes.length)
      reject(400, "invalid-round", `k must be <= d = ${schema.attributes.length} (got ${request.k})`);
    plan = planCalm(
      { schema, n: request.n, eps: request.eps, k: request.k },
      {
        ...(request.theta !== undefined ? { theta: request.theta } : {}),
        ...(request.oracle !== undefined ? { oracle: request.oracle } : {}),
      },
    );
    readPlan(JSON.parse(JSON.stringify(plan)));
  } catch (error) {
    if (error instanceof Error && error.name === "RequestRejectedError") throw error;
    reject(400, "invalid-round", error instanceof Error ? error.message : String(error));
  }
  const largest = Math.max(...plan.views.map((view) => view.cells));
  if (largest > MAX_VIEW_CELLS)
    reject(
      400,
      "invalid-round",
      `the plan has a view of ${largest} cells; this collector stores views of at most ${MAX_VIEW_CELLS}`,
    );
  return { id: randomUUID(), createdAt: now.toISOString(), plan, request };
}
