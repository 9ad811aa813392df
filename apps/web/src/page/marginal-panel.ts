import { clearChart, renderVegaLite } from "./charts.js";
import { byId } from "./dom.js";
import { marginalHeatmapSpec, sharedDomain, tableLayout } from "./heatmaps.js";
import { marginalNumbers } from "./render-tables.js";
import type { RunState } from "./run-state.js";

/**
 * The marginal panel: the inspected table chosen by method and ε, as numbers and
 * as true and estimated heatmaps on one colour scale.
 */

export const tableMethod = byId<HTMLSelectElement>("table-method");
export const tableEps = byId<HTMLSelectElement>("table-eps");

/** Replaces a select's options with `values` (unchanged when equal), keeping the choice when still offered. */
function fillSelect(select: HTMLSelectElement, values: string[]): void {
  const previous = select.value;
  if (
    select.options.length === values.length &&
    Array.from(select.options).every((o, i) => o.value === values[i])
  )
    return;
  select.replaceChildren(...values.map((value) => new Option(value, value)));
  if (values.includes(previous)) select.value = previous;
  select.disabled = values.length === 0;
}

/** Renders the chosen table (method and ε selects refilled from what the run sent): numbers and both heatmaps. */
export async function renderTables(current: RunState): Promise<void> {
  const methods = [...new Set([...current.tables.values()].map((t) => t.method))];
  fillSelect(tableMethod, methods);
  const epsValues = [...current.tables.values()]
    .filter((t) => t.method === tableMethod.value)
    .map((t) => String(t.eps));
  fillSelect(tableEps, epsValues);
  const table = current.tables.get(`${tableMethod.value} ${tableEps.value}`);
  const error = byId("table-error");
  if (!table) return;
  const layout = tableLayout(table, current.names, current.labels);
  const domain = sharedDomain(table);
  const name = `{${table.attributes.map((a) => current.names[a]).join(", ")}}`;
  error.textContent = `Marginal ${name} of repetition 1's ${current.request.config.n} users; estimate by ${table.method} at ε = ${table.eps}. Colours share one scale.`;
  const numbers = marginalNumbers(table, layout);
  byId("table-numbers").replaceChildren(numbers);
  const cellText = (cells: readonly number[]) => cells.map((v) => v.toFixed(3)).join(", ");
  await Promise.all([
    renderVegaLite(
      byId("heatmap-true"),
      marginalHeatmapSpec(table.truth, layout, `True ${name}`, domain),
      `True marginal ${name}, cells in order: ${cellText(table.truth)}`,
    ),
    renderVegaLite(
      byId("heatmap-estimate"),
      marginalHeatmapSpec(
        table.estimate,
        layout,
        `${table.method}, ε = ${table.eps}`,
        domain,
        table.interval?.lower.map((lower, i) => (table.interval!.upper[i]! - lower) / 2),
      ),
      `Estimated marginal ${name} by ${table.method} at ε ${table.eps}, SSE ${numbers.dataset.sse}: ${cellText(table.estimate)}`,
    ),
  ]);
}

/** Empties the panel for a new run. */
export function resetTables(): void {
  byId("table-numbers").replaceChildren();
  byId("table-error").textContent = "";
  clearChart(byId("heatmap-true"), "True marginal, running");
  clearChart(byId("heatmap-estimate"), "Estimated marginal, running");
  fillSelect(tableMethod, []);
  fillSelect(tableEps, []);
}
