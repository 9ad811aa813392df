import type { PipelineCommand, PipelineMessage, PipelineRequest } from "./api.js";
import { clearFormError, readRequest, showFormError } from "./controls-panel.js";
import { byId } from "./dom.js";
import { FormValueError } from "./form-values.js";
import { renderTables } from "./marginal-panel.js";
import { datasetLine, planList } from "./render-tables.js";
import { renderResults, resetResults } from "./results-panel.js";
import { type RunState, setState } from "./run-state.js";

/**
 * The run panel: Run and Cancel, the status line and the progress bar; a run is
 * one Web Worker (pipeline-worker.ts) whose messages fill the other panels.
 */

const runButton = byId<HTMLButtonElement>("run");
const cancelButton = byId<HTMLButtonElement>("cancel");
const status = byId("status");
const progress = byId<HTMLProgressElement>("progress");
/** Per-run detail, not a live region: screen readers hear the start and the end (in #status), not every run. */
const progressText = byId("progress-text");
let state: RunState | undefined;

/** The run in progress or the last one (undefined before the first). */
export function currentRun(): RunState | undefined {
  return state;
}

/** Re-renders the results at most every 250 ms while runs arrive (only while `current` is the page's run). */
function scheduleRender(current: RunState): void {
  if (current.renderScheduled) return;
  current.renderScheduled = true;
  setTimeout(() => {
    current.renderScheduled = false;
    if (state === current) void renderResults(current);
  }, 250);
}

/** Ends the run: stops its worker, restores the buttons and focus, says `message`, renders what finished. */
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

/** One message of the run's worker into the panels (ignored once another run started). */
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

/** Run: reads the form (a bad field shows its error and nothing starts), resets the panels and starts the worker. */
export async function start(event: SubmitEvent): Promise<void> {
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

/** Cancel: terminates the worker at once; what finished stays on the page. */
export function cancel(): void {
  if (!state?.worker) return;
  finish(
    state,
    "cancelled",
    `Cancelled after ${state.runs.length} of ${state.total} method runs; what finished is shown.`,
  );
  runButton.focus();
}
