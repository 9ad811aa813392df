import {
  type CalmPlan,
  type CalmReport,
  InvalidParameterError,
  InvalidRecordError,
} from "@calm-ldp/calm-core";
import { createGrr, createOue, createSue, type FrequencyOracle } from "@calm-ldp/frequency-oracles";
import { recordCellIndex } from "@calm-ldp/marginal-algebra";
import { type Rng, uniformInt } from "@calm-ldp/random";

/** The oracles a client can run, by the plan's oracle name (no registry: the bundle keeps only these). */
const FACTORIES = { grr: createGrr, oue: createOue, sue: createSue } as const;

/** @internal The oracles of a plan's views, built once per plan object. */
export interface ClientRuntime {
  oracles: FrequencyOracle<unknown>[];
  cardinalities: number[][];
}

const runtimes = new WeakMap<CalmPlan, ClientRuntime>();

/** @internal */
export function runtimeOf(plan: CalmPlan): ClientRuntime {
  let runtime = runtimes.get(plan);
  if (!runtime) {
    const cardinalities = plan.schema.attributes.map((a) => a.labels.length);
    runtime = {
      oracles: plan.views.map((view) => {
        const factory = FACTORIES[view.oracle as keyof typeof FACTORIES];
        if (!factory)
          throw new InvalidParameterError(
            `createReport: oracle ${view.oracle} has no client in this package`,
          );
        return factory({ eps: plan.eps, domain: view.cells }) as FrequencyOracle<unknown>;
      }),
      cardinalities: plan.views.map((view) => view.attributes.map((a) => cardinalities[a]!)),
    };
    runtimes.set(plan, runtime);
  }
  return runtime;
}

/**
 * CALM's client step (§4.1), exactly as calm-core's `calmReport` runs it and
 * drawing the same random words in the same order: validate the record, draw the
 * group uniformly (`uniformInt(rng, m)`; skipped when `view` is given), project the
 * record onto the view (mixed-radix cell, ALGORITHMS.md §1) and perturb that cell
 * with the view's oracle built by `createGrr`/`createOue`/`createSue` of
 * @calm-ldp/frequency-oracles with the plan's eps (the registry's own factories).
 * Built without the oracle registry so the browser bundle holds only these three
 * oracles; `perturb-record.test.ts` checks it against `calmReport` draw for draw.
 * O(d + cost of one perturbation).
 * @internal
 */
export function perturbRecord(
  plan: CalmPlan,
  record: ArrayLike<number>,
  rng: Rng,
  view: number | undefined,
): CalmReport {
  checkRecord(plan, record, "createReport");
  if (view !== undefined) {
    if (!Number.isInteger(view) || view < 0 || view >= plan.views.length)
      throw new InvalidParameterError(
        `createReport: view must be an integer in [0, ${plan.views.length}) (got ${view})`,
      );
  } else {
    if (plan.assignment === "assigned")
      throw new InvalidParameterError("createReport: this plan assigns groups on the server; pass view");
    view = uniformInt(rng, plan.views.length);
  }
  const runtime = runtimeOf(plan);
  const cell = recordCellIndex(record, plan.views[view]!.attributes, runtime.cardinalities[view]!);
  return { view, report: runtime.oracles[view]!.perturb(cell, rng) };
}

/**
 * Throw calm-core's `InvalidRecordError` (naming `where`) unless `record` has one
 * integer value per schema attribute, each in [0, cardinality). O(d). @internal
 */
export function checkRecord(plan: CalmPlan, record: ArrayLike<number>, where: string): void {
  const attributes = plan.schema.attributes;
  const d = attributes.length;
  if (!record || record.length !== d) {
    throw new InvalidRecordError(
      `${where}: a record must have ${d} values, one per schema attribute (got ${record?.length})`,
    );
  }
  for (let a = 0; a < d; a++) {
    const v = record[a]!;
    const c = attributes[a]!.labels.length;
    if (!Number.isInteger(v) || v < 0 || v >= c) {
      throw new InvalidRecordError(
        `${where}: value of attribute ${a} (${attributes[a]!.name}) must be an integer in [0, ${c}) (got ${v})`,
      );
    }
  }
}
