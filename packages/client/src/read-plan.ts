import { CALM_PLAN_VERSION, type CalmPlan } from "@calm-ldp/calm-core";
import { PlanFormatError } from "./errors.js";

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x);
const isCount = (x: unknown, min: number): x is number =>
  typeof x === "number" && Number.isSafeInteger(x) && x >= min;

function bad(condition: string): never {
  throw new PlanFormatError(`readPlan: ${condition}`);
}

/**
 * Check that `json` (a plan fetched from a collector, already parsed) is a CALM
 * plan this client can run, and return it typed: method "calm" at
 * CALM_PLAN_VERSION, eps > 0, a schema of d >= 1 attributes with >= 2 labels
 * each, and views of strictly ascending attribute indices whose `cells` is the
 * product of their cardinalities and whose oracle has a wire format (GRR, OUE,
 * SUE). Throws `PlanFormatError` naming the first violated condition. The plan
 * is not copied. O(d + sum of view sizes).
 */
export function readPlan(json: unknown): CalmPlan {
  if (!isObject(json)) bad("a plan must be a JSON object");
  if (json.method !== "calm") bad(`method must be "calm" (got ${JSON.stringify(json.method)})`);
  if (json.version !== CALM_PLAN_VERSION)
    bad(`version must be ${CALM_PLAN_VERSION} (got ${JSON.stringify(json.version)})`);
  if (typeof json.eps !== "number" || !(json.eps > 0 && json.eps <= 20)) bad("eps must be in (0, 20]");
  const schema = json.schema;
  if (!isObject(schema) || !Array.isArray(schema.attributes) || schema.attributes.length === 0)
    bad("schema.attributes must be a non-empty array");
  const cardinalities = schema.attributes.map((attribute: unknown, i: number) => {
    if (!isObject(attribute) || !Array.isArray(attribute.labels) || attribute.labels.length < 2)
      bad(`schema.attributes[${i}] must have at least 2 labels`);
    return attribute.labels.length;
  });
  if (json.assignment !== "random" && json.assignment !== "assigned")
    bad('assignment must be "random" or "assigned"');
  if (!Array.isArray(json.views) || json.views.length === 0) bad("views must be a non-empty array");
  json.views.forEach((view: unknown, v: number) => {
    if (!isObject(view) || !Array.isArray(view.attributes) || view.attributes.length === 0)
      bad(`views[${v}].attributes must be a non-empty array`);
    let cells = 1;
    view.attributes.forEach((a: unknown, j: number) => {
      if (
        !isCount(a, 0) ||
        a >= cardinalities.length ||
        (j > 0 && a <= (view.attributes as number[])[j - 1]!)
      )
        bad(`views[${v}].attributes must be ascending attribute indices`);
      cells *= cardinalities[a]!;
    });
    if (view.cells !== cells) bad(`views[${v}].cells must be ${cells}`);
    if (view.oracle !== "grr" && view.oracle !== "oue" && view.oracle !== "sue")
      bad(`views[${v}].oracle must be grr, oue or sue (got ${JSON.stringify(view.oracle)})`);
  });
  return json as unknown as CalmPlan;
}
