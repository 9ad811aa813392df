import type { CalmPlan } from "@calm-ldp/calm-core";
import { perObject } from "@calm-ldp/marginal-algebra";
import { cellOffsets } from "../../storage-rows.js";
import { intArray } from "./arrays.js";

/**
 * Where each cell of a plan sits in a support delta (the views' cells in plan
 * order, {@link cellOffsets}): `offsets[v]` the first flat index of view v,
 * `total` the cells of all views, and as PostgreSQL `int[]` literals the view
 * (`viewOf`) and the cell within it (`cellOf`) of each flat index. Cached per
 * plan. O(total cells).
 */
export interface CellLayout {
  readonly offsets: Int32Array;
  readonly total: number;
  readonly viewOf: string;
  readonly cellOf: string;
}

/** The {@link CellLayout} of a plan, computed once per plan object. */
export const cellLayout = perObject((plan: CalmPlan): CellLayout => {
  const offsets = cellOffsets(plan);
  const viewOf: number[] = [];
  const cellOf: number[] = [];
  plan.views.forEach((view, v) => {
    for (let c = 0; c < view.cells; c++) {
      viewOf.push(v);
      cellOf.push(c);
    }
  });
  return { offsets, total: offsets[plan.views.length]!, viewOf: intArray(viewOf), cellOf: intArray(cellOf) };
});
