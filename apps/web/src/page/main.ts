import { buildMethodChoices, showKnobs } from "./controls-panel.js";
import { byId } from "./dom.js";
import { renderTables, tableEps, tableMethod } from "./marginal-panel.js";
import { renderResults } from "./results-panel.js";
import { cancel, currentRun, start } from "./run-panel.js";
import { setState } from "./run-state.js";

/**
 * The demo page's entry: the panels (controls-panel.ts, run-panel.ts,
 * results-panel.ts, marginal-panel.ts) wired to the page's events.
 */

buildMethodChoices();
showKnobs();
setState("idle");
byId("source").addEventListener("change", showKnobs);
byId<HTMLFormElement>("controls").addEventListener("submit", (event) => void start(event as SubmitEvent));
byId<HTMLButtonElement>("cancel").addEventListener("click", cancel);
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && currentRun()?.worker) cancel();
});
tableMethod.addEventListener("change", () => {
  const state = currentRun();
  if (state) void renderTables(state);
});
byId("metric").addEventListener("change", () => {
  const state = currentRun();
  if (state) void renderResults(state);
});
tableEps.addEventListener("change", () => {
  const state = currentRun();
  if (state) void renderTables(state);
});
byId("cli").textContent = "pnpm calm-ldp run …";
