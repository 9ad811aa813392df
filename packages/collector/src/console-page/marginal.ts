import type { CalmPlan } from "@calm-ldp/calm-core";
import { h } from "./dom.js";

/**
 * The label of every cell of the marginal on `attributes` (ascending indices),
 * in the collector's order (mixed radix, the first attribute most significant):
 * the attributes' labels joined with " · ". O(cells).
 */
export function cellLabels(plan: CalmPlan, attributes: readonly number[]): string[] {
  let labels = [""];
  for (const a of attributes) {
    const own = plan.schema.attributes[a]!.labels;
    labels = labels.flatMap((prefix) => own.map((label) => (prefix ? `${prefix} · ${label}` : label)));
  }
  return labels;
}

/** The heatmap layout of a marginal: rows the combinations of all attributes but the last, columns the last's labels. */
export function marginalLayout(
  plan: CalmPlan,
  attributes: readonly number[],
): { rowLabels: string[]; colLabels: string[] } {
  const last = attributes.at(-1)!;
  const rest = attributes.slice(0, -1);
  return {
    rowLabels: rest.length === 0 ? ["all"] : cellLabels(plan, rest),
    colLabels: [...plan.schema.attributes[last]!.labels],
  };
}

/** The attribute names of a query (`a,b`) for the marginals endpoints. */
export const attrsParam = (plan: CalmPlan, attributes: readonly number[]): string =>
  attributes.map((a) => encodeURIComponent(plan.schema.attributes[a]!.name)).join(",");

/**
 * Checkboxes for the attributes of a marginal query (at most `max` of them, the
 * plan's k: what the plan is tuned for), `initial` checked. `selected()` gives the
 * checked indices, ascending.
 */
export function attributePicker(
  plan: CalmPlan,
  initial: readonly number[],
  max: number,
): { element: HTMLFieldSetElement; selected(): number[] } {
  const boxes = plan.schema.attributes.map((attribute, a) => {
    const input = h("input", { type: "checkbox", name: "attr", value: String(a) });
    input.checked = initial.includes(a);
    return { input, label: h("label", {}, input, ` ${attribute.name}`) };
  });
  const element = h(
    "fieldset",
    { class: "attrs" },
    h("legend", {}, `Attributes (1 to ${max})`),
    ...boxes.map((box) => box.label),
  );
  const update = () => {
    const count = boxes.filter((box) => box.input.checked).length;
    for (const box of boxes) box.input.disabled = !box.input.checked && count >= max;
  };
  element.addEventListener("change", update);
  update();
  return {
    element,
    selected: () => boxes.flatMap((box, a) => (box.input.checked ? [a] : [])),
  };
}

/** The first view's attributes, at most k of them: a marginal every plan can answer by projection. */
export function defaultAttributes(plan: CalmPlan): number[] {
  return (plan.views[0]?.attributes ?? [0]).slice(0, Math.max(1, Math.min(plan.k, 2)));
}
