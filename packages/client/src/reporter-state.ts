import type { CalmPlan } from "@calm-ldp/calm-core";
import { fnv1a32 } from "@calm-ldp/frequency-oracles";
import type { PendingReport, ReporterStart } from "./api.js";

/** Format tag and version of a stored reporter state; another version is not read. */
export const REPORTER_STATE_VERSION = 1;
const TAG = `calm-ldp-reporter/${REPORTER_STATE_VERSION}`;

/**
 * A reporter's state: the plan it belongs to (fingerprint), the user's group,
 * the memoized permanent responses by "view:cell" (a GRR value, or the unary
 * bitset's words), the rounds reported and the reports not yet acknowledged.
 * @internal
 */
export interface ReporterState {
  campaign: string;
  plan: string;
  view: number | null;
  memo: Record<string, number | number[]>;
  rounds: string[];
  queue: PendingReport[];
}

/** FNV-1a of the plan's public parameters (eps, schema cardinalities, views). O(size of the plan). @internal */
export function planFingerprint(plan: CalmPlan): string {
  const text = JSON.stringify([
    plan.method,
    plan.version,
    plan.eps,
    plan.schema.attributes.map((a) => a.labels.length),
    plan.views.map((v) => [v.attributes, v.cells, v.oracle]),
  ]);
  return fnv1a32(text).toString(16);
}

/** `"calm-ldp-reporter/1 <fnv1a32 of the JSON, hex> <JSON>"`. O(size). @internal */
export function encodeState(state: ReporterState): string {
  const json = JSON.stringify(state);
  return `${TAG} ${fnv1a32(json).toString(16)} ${json}`;
}

const isInt = (x: unknown, below: number): x is number =>
  typeof x === "number" && Number.isInteger(x) && x >= 0 && x < below;

/**
 * Read a stored state for `campaign` under `plan`: "corrupt" unless the tag,
 * version and checksum match and every field is well formed for the plan
 * (group in range, memo keys of that group, responses of the view's oracle,
 * queued reports of that group); "foreign" when it is a sound state of another
 * campaign or plan. O(size). @internal
 */
export function decodeState(
  text: string,
  campaign: string,
  plan: CalmPlan,
): { start: ReporterStart; state?: ReporterState } {
  const first = text.indexOf(" ");
  const second = text.indexOf(" ", first + 1);
  if (first < 0 || second < 0 || text.slice(0, first) !== TAG) return { start: "corrupt" };
  const json = text.slice(second + 1);
  if (text.slice(first + 1, second) !== fnv1a32(json).toString(16)) return { start: "corrupt" };
  let state: ReporterState;
  try {
    state = JSON.parse(json);
  } catch {
    return { start: "corrupt" };
  }
  if (typeof state !== "object" || state === null) return { start: "corrupt" };
  if (state.campaign !== campaign || state.plan !== planFingerprint(plan)) return { start: "foreign" };
  const views = plan.views;
  const view = state.view;
  const wellFormed =
    (view === null || isInt(view, views.length)) &&
    typeof state.memo === "object" &&
    state.memo !== null &&
    Object.entries(state.memo).every(([key, response]) => {
      const [v, cell] = key.split(":").map(Number);
      if (v !== view || !isInt(cell, views[v]!.cells)) return false;
      const cells = views[v]!.cells;
      return views[v]!.oracle === "grr"
        ? isInt(response, cells)
        : Array.isArray(response) &&
            response.length === (cells + 31) >>> 5 &&
            response.every((w) => isInt(w, 2 ** 32));
    }) &&
    Array.isArray(state.rounds) &&
    state.rounds.every((r) => typeof r === "string") &&
    Array.isArray(state.queue) &&
    state.queue.every(
      (p) => typeof p?.round === "string" && typeof p.report?.id === "string" && p.report.view === view,
    );
  return wellFormed ? { start: "restored", state } : { start: "corrupt" };
}
