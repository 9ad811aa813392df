import { type HeatmapCell, heatmapSpec, type VegaLiteSpec } from "@calm-ldp/experiments";
import type { InspectedTable } from "./api.js";

/** Axis categories and cells of a k-way table laid out in two dimensions. */
export interface TableLayout {
  xTitle: string;
  yTitle: string;
  /** Categories of the first attribute, in code order. */
  xOrder: string[];
  /** Joint categories of the other attributes (`a · b`), in mixed-radix order. */
  yOrder: string[];
  /** Which (x, y) each cell goes to, in the table's cell order. */
  position(cell: number): { x: string; y: string };
}

/**
 * Lay a k-way marginal (mixed-radix order, first attribute most significant) out
 * as a grid: x = the first attribute's categories, y = the joint categories of
 * the others ("all" for k = 1). O(cells).
 */
export function tableLayout(
  table: Pick<InspectedTable, "attributes" | "cardinalities">,
  names: readonly string[],
  labels: readonly (readonly string[])[],
): TableLayout {
  const [first, ...rest] = table.attributes;
  const restCards = table.cardinalities.slice(1);
  const restCells = restCards.reduce((p, c) => p * c, 1);
  const xOrder = [...labels[first!]!];
  const yOrder = Array.from({ length: restCells }, (_, index) => {
    if (rest.length === 0) return "all";
    const parts: string[] = [];
    let remainder = index;
    for (let j = rest.length - 1; j >= 0; j--) {
      parts[j] = labels[rest[j]!]![remainder % restCards[j]!]!;
      remainder = Math.floor(remainder / restCards[j]!);
    }
    return parts.join(" · ");
  });
  return {
    xTitle: names[first!]!,
    yTitle: rest.length === 0 ? "" : rest.map((a) => names[a]).join(" · "),
    xOrder,
    yOrder,
    position: (cell) => ({ x: xOrder[Math.floor(cell / restCells)]!, y: yOrder[cell % restCells]! }),
  };
}

/**
 * The true or estimated table of an inspected marginal as a heatmap: the
 * experiment harness's `heatmapSpec` (linear colour), given the categories' own
 * order, a colour domain shared by both tables (so colours compare), cell labels
 * to 3 decimals, and label colour chosen for contrast. With `halfWidths` (an
 * interval's half-width per cell), each cell also shows its error bar as a
 * smaller "±0.012" line under the value (a text layer named `cell_interval`: Vega marks `cell_interval_marks`). O(cells).
 */
export function marginalHeatmapSpec(
  cells: readonly number[],
  layout: TableLayout,
  title: string,
  domain: readonly [number, number],
  halfWidths?: readonly number[],
): VegaLiteSpec {
  const values: HeatmapCell[] = cells.map((value, i) => ({ ...layout.position(i), value }));
  const spec = heatmapSpec(values, {
    xTitle: layout.xTitle,
    yTitle: layout.yTitle,
    valueTitle: "fraction",
    title,
    scale: "linear",
  }) as {
    encoding: { x: Record<string, unknown>; y: Record<string, unknown> };
    layer: { encoding: Record<string, Record<string, unknown>> }[];
  } & VegaLiteSpec;
  spec.encoding.x.sort = layout.xOrder;
  spec.encoding.y.sort = layout.yOrder;
  spec.encoding.x.axis = { labelAngle: 0, labelLimit: 120 };
  const rect = spec.layer[0]!.encoding;
  rect.color!.scale = { ...(rect.color!.scale as object), domain: [...domain] };
  const textLayer = spec.layer[1] as
    | { mark?: unknown; encoding: Record<string, Record<string, unknown>> }
    | undefined;
  const text = textLayer?.encoding;
  if (textLayer && text) {
    textLayer.mark = { type: "text", fontSize: 12 };
    text.text!.format = ".3f";
    const middle = (domain[0] + domain[1]) / 2;
    text.color = { condition: { test: `datum.value > ${middle}`, value: "black" }, value: "white" };
    if (halfWidths) {
      const data = (spec as unknown as { data: { values: Record<string, unknown>[] } }).data.values;
      data.forEach((datum, i) => {
        datum.pm = `±${halfWidths[i]!.toFixed(3)}`;
      });
      textLayer.mark = { type: "text", fontSize: 12, dy: -5 };
      spec.layer.push({
        name: "cell_interval",
        mark: { type: "text", fontSize: 9, dy: 8 },
        encoding: { text: { field: "pm", type: "nominal" }, color: text.color },
      } as unknown as (typeof spec.layer)[number]);
    }
  }
  const step = Math.max(56, 8 * Math.max(...layout.xOrder.map((label) => label.length)));
  return { ...spec, width: { step }, height: { step: 30 } };
}

/** The colour domain both tables share: [min, max] over both, widened when flat. O(cells). */
export function sharedDomain(table: Pick<InspectedTable, "truth" | "estimate">): [number, number] {
  let low = Math.min(0, ...table.truth, ...table.estimate);
  let high = Math.max(...table.truth, ...table.estimate);
  if (!(high > low)) {
    low -= 0.5;
    high += 0.5;
  }
  return [low, high];
}
