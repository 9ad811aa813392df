import type { CalmPlan } from "@calm-ldp/calm-core";
import { fnv1a32 } from "@calm-ldp/frequency-oracles";
import type { PendingReport, ReporterStart } from "./api.js";

/**
 * Format version of a stored reporter state. Version 1 (every reported round id
 * kept) is read and migrated; any other version is not read ("corrupt").
 */
export const REPORTER_STATE_VERSION = 2;
const TAG = `calm-ldp-reporter/${REPORTER_STATE_VERSION}`;
const TAG_V1 = "calm-ldp-reporter/1";

/** Round ids a reporter keeps by default to refuse a second report in one round. */
export const DEFAULT_KEEP_ROUND_IDS = 32;

/**
 * A reporter's state: the plan it belongs to (fingerprint), the user's group,
 * the memoized permanent responses by "view:cell" (a GRR value, or the unary
 * bitset's words), the ids of the latest rounds reported (at most `keepRoundIds`:
 * older ids are pruned, see {@link pruneRounds}), the number of rounds reported
 * ever, and the reports not yet acknowledged.
 * @internal
 */
export interface ReporterState {
  campaign: string;
  plan: string;
  view: number | null;
  memo: Record<string, number | number[]>;
  rounds: string[];
  reported: number;
  queue: PendingReport[];
}

/**
 * The latest `keep` round ids of `rounds` (oldest first), plus every older one a
 * queued report still belongs to (its round must stay refused while the report may
 * be re-sent). O(rounds + queue). @internal
 */
export function pruneRounds(
  rounds: readonly string[],
  queue: readonly PendingReport[],
  keep: number,
): string[] {
  if (rounds.length <= keep) return rounds.slice();
  const queued = new Set(queue.map((p) => p.round));
  const cut = rounds.length - keep;
  return rounds.filter((round, i) => i >= cut || queued.has(round));
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

/** `"calm-ldp-reporter/2 <fnv1a32 of the JSON, hex> <JSON>"`. O(size). @internal */
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
 * queued reports of that group, round count); "foreign" when it is a sound state
 * of another campaign or plan. A sound version-1 state is migrated: `reported` =
 * its number of round ids, the ids pruned to the latest `keepRoundIds` (plus queued
 * rounds). O(size). @internal
 */
export function decodeState(
  text: string,
  campaign: string,
  plan: CalmPlan,
  keepRoundIds = DEFAULT_KEEP_ROUND_IDS,
): { start: ReporterStart; state?: ReporterState } {
  const first = text.indexOf(" ");
  const second = text.indexOf(" ", first + 1);
  const tag = text.slice(0, first);
  if (first < 0 || second < 0 || (tag !== TAG && tag !== TAG_V1)) return { start: "corrupt" };
  const json = text.slice(second + 1);
  if (text.slice(first + 1, second) !== fnv1a32(json).toString(16)) return { start: "corrupt" };
  let state: ReporterState;
  try {
    state = JSON.parse(json);
  } catch {
    return { start: "corrupt" };
  }
  if (typeof state !== "object" || state === null) return { start: "corrupt" };
  if (tag === TAG_V1) {
    if (!Array.isArray(state.rounds) || !Array.isArray(state.queue)) return { start: "corrupt" };
    state = {
      ...state,
      reported: state.rounds.length,
      rounds: pruneRounds(state.rounds, state.queue, keepRoundIds),
    };
  }
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
    Number.isSafeInteger(state.reported) &&
    state.reported >= state.rounds.length &&
    Array.isArray(state.queue) &&
    state.queue.every(
      (p) => typeof p?.round === "string" && typeof p.report?.id === "string" && p.report.view === view,
    );
  return wellFormed ? { start: "restored", state } : { start: "corrupt" };
}
