import type { CalmPlan } from "@calm-ldp/calm-core";
import { type InstantaneousLayer, instantaneousLayer } from "@calm-ldp/frequency-oracles";
import { recordCellIndex } from "@calm-ldp/marginal-algebra";
import { type Rng, uniformInt } from "@calm-ldp/random";
import { type ClientRuntime, runtimeOf } from "./perturb-record.js";

/** Memoized permanent responses by "view:cell": a GRR value or the unary bitset's words. @internal */
export type ReporterMemo = Record<string, number | number[]>;

/** @internal The oracles of a plan's views and their instantaneous layers (absent without `instantEps`). */
export interface ReporterCore {
  readonly plan: CalmPlan;
  readonly runtime: ClientRuntime;
  readonly layers: readonly InstantaneousLayer[] | undefined;
}

/** @internal Build the core once per reporter: O(views) oracles and layers. */
export function reporterCore(plan: CalmPlan, instantEps: number | undefined): ReporterCore {
  const runtime = runtimeOf(plan);
  const layers =
    instantEps === undefined ? undefined : runtime.oracles.map((o) => instantaneousLayer(o, instantEps));
  return { plan, runtime, layers };
}

/**
 * The sampling core of `createReporter` (what decides what a report says; the
 * reporter adds validation, the ledger, persistence and delivery around it):
 * project `record` onto `view`'s attributes (mixed-radix cell), look up the
 * memoized permanent response of (view, cell) in `memo`, or, when there is none,
 * call `beforeDraw(memoized values so far)` (which may throw to refuse: the budget
 * check) and draw it with the view's oracle at the plan's eps, storing it in `memo`
 * (mutated). The payload is the permanent response itself, or with an
 * instantaneous layer a fresh randomization of it. The privacy audit
 * (`privacy-across-rounds.test.ts`) runs this very function for 10^6 simulated users.
 * O(d + cells of the view).
 * @internal
 */
export function memoizedReport(
  core: ReporterCore,
  view: number,
  record: ArrayLike<number>,
  memo: ReporterMemo,
  rng: Rng,
  beforeDraw?: (memoized: number) => void,
): { key: string; fresh: boolean; payload: number | Uint32Array } {
  const { plan, runtime, layers } = core;
  const cell = recordCellIndex(record, plan.views[view]!.attributes, runtime.cardinalities[view]!);
  const key = `${view}:${cell}`;
  let permanent = memo[key];
  const fresh = permanent === undefined;
  if (permanent === undefined) {
    beforeDraw?.(Object.keys(memo).length);
    const drawn = runtime.oracles[view]!.perturb(cell, rng) as number | Uint32Array;
    permanent = typeof drawn === "number" ? drawn : Array.from(drawn);
    memo[key] = permanent;
  }
  const response = typeof permanent === "number" ? permanent : Uint32Array.from(permanent);
  return { key, fresh, payload: layers ? layers[view]!.perturb(response, rng) : response };
}

/**
 * The user's group: the kept one, else the collector's assignment, else drawn
 * uniformly once (`uniformInt(rng, views)`, the same draw as CALM's client step). O(1).
 * @internal
 */
export function reporterView(
  core: ReporterCore,
  kept: number | null,
  assigned: number | undefined,
  rng: Rng,
): number {
  return kept ?? assigned ?? uniformInt(rng, core.plan.views.length);
}
