import type { CalmPlan } from "@calm-ldp/calm-core";
import { reject } from "./errors.js";

/**
 * Parse a query's `attrs` parameter (comma-separated attribute names, or indices
 * when a token is no attribute's name) into distinct attribute indices,
 * ascending. Throws `RequestRejectedError` (400 "invalid-query") for an unknown
 * or repeated attribute, and 400 "query-too-large" when the marginal would have
 * more than `maxCells` cells. O(d + tokens).
 */
export function queryAttributes(plan: CalmPlan, attrs: string, maxCells: number): number[] {
  const attributes = plan.schema.attributes;
  const byName = new Map(attributes.map((a, i) => [a.name, i]));
  const indices = attrs.split(",").map((token) => {
    const name = token.trim();
    const found = byName.get(name);
    if (found !== undefined) return found;
    if (/^\d+$/.test(name) && Number(name) < attributes.length) return Number(name);
    return reject(400, "invalid-query", `attrs: ${JSON.stringify(name)} is not an attribute of this round`);
  });
  const sorted = [...new Set(indices)].sort((a, b) => a - b);
  if (sorted.length !== indices.length) reject(400, "invalid-query", "attrs: an attribute is repeated");
  let cells = 1;
  for (const a of sorted) cells *= attributes[a]!.labels.length;
  if (cells > maxCells)
    reject(400, "query-too-large", `attrs: the marginal would have ${cells} cells (limit ${maxCells})`);
  return sorted;
}

/**
 * Parse a query's `interval` parameter (a confidence level, e.g. "0.95") into a
 * number in (0, 1); undefined when absent. Throws `RequestRejectedError` (400
 * "invalid-query") for anything else. O(length).
 */
export function intervalLevel(interval: string | undefined): number | undefined {
  if (interval === undefined) return undefined;
  const text = interval.trim();
  const level = /^[0-9]*\.?[0-9]+(e-?[0-9]+)?$/i.test(text) ? Number(text) : Number.NaN;
  if (!(level > 0 && level < 1))
    reject(
      400,
      "invalid-query",
      `interval: must be a confidence level strictly between 0 and 1, e.g. 0.95 (got ${JSON.stringify(interval)})`,
    );
  return level;
}
