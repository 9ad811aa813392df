import type { MethodRun } from "@calm-ldp/experiments";
import type { CalmPlanSummary, InspectedTable, PipelineRequest } from "./api.js";
import { byId } from "./dom.js";

/** What the page knows about the run in progress (or the last one). */
export interface RunState {
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

const statusArea = byId("status-area");

/** The page's state, on `<body>` and the status area (`data-state`, which the style and the tests read). */
export function setState(name: "idle" | "running" | "done" | "cancelled" | "error"): void {
  document.body.dataset.state = name;
  statusArea.dataset.state = name;
}
