import type { CalmPlan } from "@calm-ldp/calm-core";
import { reject } from "./errors.js";
import type { Estimator } from "./estimate-marginal.js";

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

/** A marginal query's parameters, checked (see {@link marginalQuery}). */
export interface MarginalQuery {
  /** Attribute indexes, ascending. */
  readonly attributes: number[];
  readonly estimator: Estimator;
  /** The confidence level of the per-cell interval asked for, if any. */
  readonly level: number | undefined;
}

/**
 * Check a marginals request's query string (`attrs`, `estimator`, `interval`) for
 * `plan`: the attributes (`queryAttributes`), the estimator (default "calm") and
 * the interval level (`intervalLevel`). An interval is refused (400
 * "interval-unavailable") for an estimator other than "calm", and when `instantLayer`
 * (what is de-biased for a clients' instantaneous layer, e.g. "a campaign round
 * de-biased with its instantaneous layer") is given: neither has a variance model.
 * O(attrs length + number of attributes).
 */
export function marginalQuery(
  plan: CalmPlan,
  query: { readonly attrs: string; readonly estimator?: Estimator; readonly interval?: string },
  maxCells: number,
  instantLayer: string | undefined,
): MarginalQuery {
  const attributes = queryAttributes(plan, query.attrs, maxCells);
  const estimator = query.estimator ?? "calm";
  const level = intervalLevel(query.interval);
  if (level !== undefined && estimator !== "calm")
    reject(
      400,
      "interval-unavailable",
      `interval: intervals are available for the "calm" estimator only (${estimator} has no variance model)`,
    );
  if (level !== undefined && instantLayer !== undefined)
    reject(400, "interval-unavailable", `interval: not available for ${instantLayer} (no variance model)`);
  return { attributes, estimator, level };
}
