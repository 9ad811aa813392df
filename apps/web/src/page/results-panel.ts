import { errorVsEpsSpec, summarize, type VegaLiteSpec } from "@calm-ldp/experiments";
import type { PipelineRequest } from "./api.js";
import { clearChart, renderVegaLite } from "./charts.js";
import { byId } from "./dom.js";
import { cliCommand } from "./form-values.js";
import { resetTables } from "./marginal-panel.js";
import { summaryTable } from "./render-tables.js";
import type { RunState } from "./run-state.js";

/**
 * The results panel: the summary table and the error-versus-ε chart (SSE or TVD),
 * with the random-source note and the equivalent command line.
 */

/** What the run's random source means for reproducing it. */
function randomNote(request: PipelineRequest): string {
  return request.random === "crypto"
    ? "Users' perturbation: the browser's crypto.getRandomValues (cryptoRng): every run differs. Data samples and queries come from the master seed."
    : `Users' perturbation: seeded streams derived from master seed ${request.config.seed} (seededRng, xoshiro128**): reproducible, and equal to the command below.`;
}

/** The summary table and the chart of the chosen metric from the runs so far (a note when none succeeded). */
export async function renderResults(current: RunState): Promise<void> {
  const metric = byId<HTMLSelectElement>("metric").value === "tvd" ? "tvd" : "sse";
  const name = metric.toUpperCase();
  const rows = summarize(current.runs);
  byId("summary").replaceChildren(summaryTable(rows, current.runs, metric));
  const drawable = rows.filter((row) => row.reps > 0 && Number.isFinite(row.sseMean));
  const chart = byId("sse-chart");
  if (drawable.length === 0) {
    clearChart(chart, `${name} versus epsilon: no successful runs yet`);
    return;
  }
  const described = drawable
    .map(
      (row) =>
        `${row.method} at ε ${row.eps}: ${name} ${(metric === "sse" ? row.sseMean : row.tvdMean).toExponential(3)}`,
    )
    .join("; ");
  const spec = errorVsEpsSpec(rows, {
    metric,
    title: `n = ${current.request.config.n}, d = ${current.request.config.d}, k = ${current.request.config.k}`,
    width: 400,
    height: 260,
  }) as VegaLiteSpec & { encoding: { color: Record<string, unknown> } };
  // More than 10 methods: a 20-colour scheme, so no two lines share a colour.
  if (new Set(rows.map((row) => row.method)).size > 10) spec.encoding.color.scale = { scheme: "tableau20" };
  await renderVegaLite(chart, spec, `${name} versus epsilon, log scale: ${described}`);
}

/** Empties every result panel for a new run and shows its random-source note and command line. */
export function resetResults(request: PipelineRequest): void {
  byId("summary").replaceChildren();
  byId("plan").replaceChildren();
  byId("dataset").textContent = "";
  clearChart(byId("sse-chart"), "SSE versus epsilon, running");
  resetTables();
  byId("random-note").textContent = randomNote(request);
  byId("cli").textContent = cliCommand(request);
  const file = request.upload ? ` (with your file's path in place of ${request.upload.name})` : "";
  byId("cli-label").textContent =
    request.random === "seeded"
      ? `Same numbers from the command line${file}:`
      : `The seeded equivalent on the command line${file}:`;
}
