import type { MarginalTable } from "./api.js";
import { fail } from "./errors.js";
import { validateTable } from "./table.js";

/**
 * @internal Validate a list of views for consistency work: non-empty, each a
 * well-formed table, one unit, one cardinality per attribute across views.
 * Returns the cardinality of every attribute seen and the largest index. O(sum |V|).
 */
export function checkViews(
  views: readonly MarginalTable[],
  where: string,
): { cardinalityOf: Map<number, number>; maxAttribute: number } {
  if (!views || views.length === 0) fail(where, "views must be a non-empty array of tables", views);
  const cardinalityOf = new Map<number, number>();
  const unit = views[0]!.unit;
  let maxAttribute = -1;
  views.forEach((view, i) => {
    validateTable(view, where);
    if (view.unit !== unit)
      fail(where, `every view must have the unit of view 0 (${unit}); view ${i} has`, view.unit);
    view.attributes.forEach((a, j) => {
      const c = view.cardinalities[j]!;
      const known = cardinalityOf.get(a);
      if (known !== undefined && known !== c)
        fail(where, `attribute ${a} must have one cardinality (${known}) in every view`, c);
      cardinalityOf.set(a, c);
      if (a > maxAttribute) maxAttribute = a;
    });
  });
  return { cardinalityOf, maxAttribute };
}
