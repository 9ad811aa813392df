import {
  errorVsEpsSpec,
  HARNESS_METHOD_IDS,
  type MethodRun,
  summarize,
  type VegaLiteSpec,
} from "@calm-ldp/experiments";
import type {
  CalmPlanSummary,
  InspectedTable,
  PipelineCommand,
  PipelineMessage,
  PipelineRequest,
  RandomSource,
  UploadedData,
} from "./api.js";
import { clearChart, renderVegaLite } from "./charts.js";
import {
  cliCommand,
  FormValueError,
  parseEpsInput,
  parseInspectInput,
  type SyntheticKnobs,
  syntheticSpec,
} from "./form-values.js";
import { marginalHeatmapSpec, sharedDomain, tableLayout } from "./heatmaps.js";
import { uploadSpec } from "./parse-upload.js";
import { datasetLine, marginalNumbers, planList, summaryTable } from "./render-tables.js";

/** What the page knows about the run in progress (or the last one). */
interface RunState {
  request: PipelineRequest;
  worker: Worker | undefined;
  started: number;
  total: number;
  runs: MethodRun[];
  plans: CalmPlanSummary[];
  tables: Map<string, InspectedTable>;
  names: string[];
  labels: string[][];
  renderScheduled: boolean;
}

const METHOD_NAMES: Record<string, string> = {
  calm: "CALM: consistent adaptive local marginals",
};

/** Checked when the page opens (as `pnpm demo` compares them); every other harness method is offered unchecked. */
const DEFAULT_METHODS = ["calm", "calm-plus", "fc", "am", "ft", "uni"];

const byId = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const node = document.getElementById(id);
  if (!node) throw new Error(`web demo: no element #${id}`);
  return node as T;
};

const form = byId<HTMLFormElement>("controls");
const runButton = byId<HTMLButtonElement>("run");
const cancelButton = byId<HTMLButtonElement>("cancel");
const status = byId("status");
const statusArea = byId("status-area");
const progress = byId<HTMLProgressElement>("progress");
/** Per-run detail, not a live region: screen readers hear the start and the end (in #status), not every run. */
const progressText = byId("progress-text");
const formError = byId("form-error");
const tableMethod = byId<HTMLSelectElement>("table-method");
const tableEps = byId<HTMLSelectElement>("table-eps");
let state: RunState | undefined;

function setState(name: "idle" | "running" | "done" | "cancelled" | "error"): void {
  document.body.dataset.state = name;
  statusArea.dataset.state = name;
}

// ---- method checkboxes: whatever the harness offers at build time ----------

function buildMethodChoices(): void {
  const box = byId("methods");
  for (const id of HARNESS_METHOD_IDS) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "checkbox";
    input.name = "method";
    input.value = id;
    input.checked = DEFAULT_METHODS.includes(id) || HARNESS_METHOD_IDS.length === 1;
    label.append(input, ` ${id}`);
    if (METHOD_NAMES[id]) label.title = METHOD_NAMES[id]!;
    box.append(label);
  }
}

// ---- reading the form --------------------------------------------------------

function numberField(id: string, integer: boolean): number {
  const input = byId<HTMLInputElement>(id);
  const name = document.querySelector(`label[for="${id}"]`)?.textContent ?? id;
  const value = Number(input.value);
  const min = input.min === "" ? Number.NEGATIVE_INFINITY : Number(input.min);
  const max = input.max === "" ? Number.POSITIVE_INFINITY : Number(input.max);
  if (input.value.trim() === "" || !Number.isFinite(value) || (integer && !Number.isInteger(value)))
    throw new FormValueError(
      id,
      `${name} must be ${integer ? "an integer" : "a number"} (got "${input.value}")`,
    );
  if (value < min || value > max)
    throw new FormValueError(
      id,
      `${name} must be between ${input.min || "-∞"} and ${input.max || "∞"} (got ${value})`,
    );
  return value;
}

function checkedValue(name: string): string {
  return (form.querySelector(`input[name="${name}"]:checked`) as HTMLInputElement).value;
}

async function readRequest(): Promise<PipelineRequest> {
  const source = byId<HTMLSelectElement>("source").value;
  const n = numberField("n", true);
  const d = numberField("d", true);
  const k = numberField("k", true);
  if (k > d) throw new FormValueError("k", `Marginal size k must be at most d = ${d} (got ${k})`);
  const eps = parseEpsInput(byId<HTMLInputElement>("eps").value);
  const methods = Array.from(
    form.querySelectorAll<HTMLInputElement>('input[name="method"]:checked'),
    (i) => i.value,
  );
  if (methods.length === 0) throw new FormValueError("methods", "Choose at least one method");
  const queriesText = byId<HTMLInputElement>("queries").value.trim();
  const queries = queriesText === "all" ? "all" : Number(queriesText);
  if (queries !== "all" && !(Number.isInteger(queries) && queries >= 1 && queries <= 10000))
    throw new FormValueError(
      "queries",
      `Queries must be an integer from 1 to 10000 or "all" (got "${queriesText}")`,
    );
  const reps = numberField("reps", true);
  const seed = numberField("seed", true);
  const inspect = parseInspectInput(byId<HTMLInputElement>("inspect").value, d, k);
  const random = checkedValue("random") as RandomSource;
  const path = checkedValue("path") as "counts" | "per-user";
  let data: string;
  let upload: UploadedData | undefined;
  let c: number | undefined;
  if (source === "upload") {
    const file = byId<HTMLInputElement>("upload-file").files?.[0];
    if (!file) throw new FormValueError("upload-file", "Choose a file to upload, or pick synthetic data");
    const format = byId<HTMLSelectElement>("upload-format").value as "csv" | "adult";
    const partition = byId<HTMLSelectElement>("upload-partition").value as "binary" | "capped";
    upload = {
      format,
      name: file.name,
      text: await file.text(),
      ...(format === "adult" ? { partition } : {}),
    };
    if (!(format === "adult" && partition === "binary")) c = numberField("upload-cap", true);
    data = uploadSpec(upload);
  } else {
    const knobs: SyntheticKnobs =
      source === "synthetic-bn"
        ? {
            kind: "synthetic-bn",
            strength: numberField("bn-strength", false),
            parents: numberField("bn-parents", true),
            cardinality: numberField("bn-cardinality", true),
            seed: numberField("bn-seed", true),
            base: byId<HTMLSelectElement>("bn-base").value as "random" | "uniform",
          }
        : {
            kind: "synthetic-iid",
            p: numberField("iid-p", false),
            cardinality: numberField("iid-cardinality", true),
          };
    data = syntheticSpec(knobs);
  }
  return {
    config: { data, n, d, k, ...(c !== undefined ? { c } : {}), eps, methods, queries, reps, seed, path },
    random,
    inspect,
    ...(upload ? { upload } : {}),
  };
}

function showFormError(error: FormValueError): void {
  formError.textContent = error.message;
  const field = document.getElementById(error.field);
  if (field) {
    field.setAttribute("aria-invalid", "true");
    field.setAttribute("aria-errormessage", "form-error");
    const target =
      field instanceof HTMLInputElement || field instanceof HTMLSelectElement
        ? field
        : field.querySelector("input");
    target?.focus();
  }
}

function clearFormError(): void {
  formError.textContent = "";
  for (const node of Array.from(form.querySelectorAll("[aria-invalid]"))) {
    node.removeAttribute("aria-invalid");
    node.removeAttribute("aria-errormessage");
  }
}

// ---- rendering ----------------------------------------------------------------

function randomNote(request: PipelineRequest): string {
  return request.random === "crypto"
    ? "Users' perturbation: the browser's crypto.getRandomValues (cryptoRng): every run differs. Data samples and queries come from the master seed."
    : `Users' perturbation: seeded streams derived from master seed ${request.config.seed} (seededRng, xoshiro128**): reproducible, and equal to the command below.`;
}

async function renderResults(current: RunState): Promise<void> {
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

function scheduleRender(current: RunState): void {
  if (current.renderScheduled) return;
  current.renderScheduled = true;
  setTimeout(() => {
    current.renderScheduled = false;
    if (state === current) void renderResults(current);
  }, 250);
}

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

async function renderTables(current: RunState): Promise<void> {
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

function resetResults(request: PipelineRequest): void {
  byId("summary").replaceChildren();
  byId("plan").replaceChildren();
  byId("table-numbers").replaceChildren();
  byId("table-error").textContent = "";
  byId("dataset").textContent = "";
  clearChart(byId("sse-chart"), "SSE versus epsilon, running");
  clearChart(byId("heatmap-true"), "True marginal, running");
  clearChart(byId("heatmap-estimate"), "Estimated marginal, running");
  fillSelect(tableMethod, []);
  fillSelect(tableEps, []);
  byId("random-note").textContent = randomNote(request);
  byId("cli").textContent = cliCommand(request);
  const file = request.upload ? ` (with your file's path in place of ${request.upload.name})` : "";
  byId("cli-label").textContent =
    request.random === "seeded"
      ? `Same numbers from the command line${file}:`
      : `The seeded equivalent on the command line${file}:`;
}

// ---- the run --------------------------------------------------------------------

function finish(current: RunState, outcome: "done" | "cancelled" | "error", message: string): void {
  current.worker?.terminate();
  current.worker = undefined;
  runButton.disabled = false;
  cancelButton.disabled = true;
  progress.hidden = outcome === "done";
  status.textContent = message;
  progressText.textContent = "";
  const active = document.activeElement;
  if (active === cancelButton || active === document.body || active === null) runButton.focus();
  setState(outcome);
  void renderResults(current);
}

function onMessage(current: RunState, message: PipelineMessage): void {
  if (state !== current) return;
  switch (message.type) {
    case "dataset":
      current.names = [...message.names];
      current.labels = message.labels.map((l) => [...l]);
      byId("dataset").textContent = datasetLine(message.info);
      break;
    case "run": {
      current.runs.push(message.run);
      progress.max = message.total;
      progress.value = message.done;
      const seconds = (performance.now() - current.started) / 1000;
      progressText.textContent = `${message.done} of ${message.total} method runs (repetition ${message.run.rep + 1}, ${message.run.method}, ε = ${message.run.eps}), ${seconds.toFixed(1)} s.`;
      scheduleRender(current);
      break;
    }
    case "plan":
      current.plans.push(message.plan);
      byId("plan").replaceChildren(planList(current.plans, current.names));
      break;
    case "table":
      current.tables.set(`${message.table.method} ${message.table.eps}`, message.table);
      void renderTables(current);
      break;
    case "done":
      finish(
        current,
        "done",
        `Done: ${current.runs.length} method runs in ${message.seconds.toFixed(1)} s (${current.runs.filter((r) => r.error).length} refused or failed).`,
      );
      break;
    case "error":
      finish(current, "error", `The run failed: ${message.message}`);
      break;
  }
}

async function start(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  if (state?.worker) return;
  clearFormError();
  let request: PipelineRequest;
  try {
    request = await readRequest();
  } catch (error) {
    if (error instanceof FormValueError) {
      showFormError(error);
      return;
    }
    throw error;
  }
  resetResults(request);
  const worker = new Worker(new URL("./pipeline-worker.ts", import.meta.url), { type: "module" });
  const current: RunState = {
    request,
    worker,
    started: performance.now(),
    total: request.config.reps * request.config.eps.length * request.config.methods.length,
    runs: [],
    plans: [],
    tables: new Map(),
    names: [],
    labels: [],
    renderScheduled: false,
  };
  state = current;
  worker.onmessage = (e: MessageEvent<PipelineMessage>) => onMessage(current, e.data);
  worker.onerror = (e) => {
    e.preventDefault();
    finish(current, "error", `The worker failed: ${e.message || "unknown error"}`);
  };
  runButton.disabled = true;
  cancelButton.disabled = false;
  progress.hidden = false;
  progress.max = current.total;
  progress.value = 0;
  status.textContent = `Running ${current.total} method runs…`;
  progressText.textContent = "";
  if (document.activeElement === runButton || document.activeElement === document.body) cancelButton.focus();
  setState("running");
  worker.postMessage({ type: "run", request } satisfies PipelineCommand);
}

function cancel(): void {
  if (!state?.worker) return;
  finish(
    state,
    "cancelled",
    `Cancelled after ${state.runs.length} of ${state.total} method runs; what finished is shown.`,
  );
  runButton.focus();
}

// ---- wiring ------------------------------------------------------------------------

function showKnobs(): void {
  const source = byId<HTMLSelectElement>("source").value;
  byId("knobs-bn").hidden = source !== "synthetic-bn";
  byId("knobs-iid").hidden = source !== "synthetic-iid";
  byId("knobs-upload").hidden = source !== "upload";
}

buildMethodChoices();
showKnobs();
setState("idle");
byId("source").addEventListener("change", showKnobs);
form.addEventListener("submit", (event) => void start(event as SubmitEvent));
cancelButton.addEventListener("click", cancel);
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && state?.worker) cancel();
});
tableMethod.addEventListener("change", () => state && void renderTables(state));
byId("metric").addEventListener("change", () => state && void renderResults(state));
tableEps.addEventListener("change", () => state && void renderTables(state));
byId("cli").textContent = "pnpm calm-ldp run …";
