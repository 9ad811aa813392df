import type { CalmPlan } from "@calm-ldp/calm-core";
import { count, h, row, table } from "./dom.js";

/** A term and its value for a `dl`. */
export const term = (name: string, value: string | Node, field?: string): HTMLElement[] => [
  h("dt", {}, name),
  h("dd", { "data-field": field }, value),
];

/**
 * A plan at a glance: eps, k, l, m, theta, the expected users, group assignment
 * and whether the views cover every k-subset, then every view with its attributes,
 * cells and oracle (and, given `perView`, its reports and share of all reports).
 */
export function planSummary(plan: CalmPlan, perView?: readonly number[]): HTMLElement {
  const total = perView?.reduce((a, b) => a + b, 0) ?? 0;
  const names = (attributes: readonly number[]) =>
    attributes.map((a) => plan.schema.attributes[a]!.name).join(", ");
  const rows = plan.views.map((view, v) =>
    row({ "data-view": String(v) }, [
      ["view", String(v)],
      ["attributes", names(view.attributes)],
      ["cells", count(view.cells)],
      ["oracle", view.oracle.toUpperCase()],
      ...(perView
        ? ([
            ["reports", count(perView[v] ?? 0)],
            ["share", total === 0 ? "—" : `${((100 * (perView[v] ?? 0)) / total).toFixed(1)}%`],
          ] as const)
        : []),
    ]),
  );
  return h(
    "section",
    { "aria-labelledby": "plan-title", class: "plan" },
    h("h2", { id: "plan-title" }, "Plan"),
    h(
      "dl",
      { class: "facts" },
      ...term("eps", String(plan.eps), "eps"),
      ...term("k", String(plan.k), "k"),
      ...term("l (view size)", String(plan.l), "l"),
      ...term("m (views)", String(plan.m), "m"),
      ...term("theta", String(plan.theta), "theta"),
      ...term("expected users", count(plan.n), "n"),
      ...term("assignment", plan.assignment, "assignment"),
      ...term("covering", plan.covering ? "every k-subset" : "no", "covering"),
      ...term("attributes", names(plan.schema.attributes.map((_, a) => a)), "attributes"),
    ),
    table(
      "Views and their oracles",
      ["View", "Attributes", "Cells", "Oracle", ...(perView ? ["Reports", "Share"] : [])],
      rows,
      { class: "views" },
    ),
  );
}
