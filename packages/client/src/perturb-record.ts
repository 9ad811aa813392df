import { type CalmPlan, type CalmReport, calmReportWith, InvalidParameterError } from "@calm-ldp/calm-core";
import {
  createGrrDevice,
  createOueDevice,
  createSueDevice,
  type DeviceOracle,
} from "@calm-ldp/frequency-oracles";
import { perObject } from "@calm-ldp/marginal-algebra";
import type { Rng } from "@calm-ldp/random";

/**
 * The oracles a client can run, by the plan's oracle name: the device side of GRR,
 * OUE and SUE (no registry, no server paths: the bundle keeps only these).
 */
const FACTORIES = { grr: createGrrDevice, oue: createOueDevice, sue: createSueDevice } as const;

/** @internal The oracles of a plan's views, built once per plan object. */
export interface ClientRuntime {
  oracles: DeviceOracle<unknown>[];
  cardinalities: number[][];
}

/** @internal (Pure: a bundle that never calls it drops it, and the oracles with it.) */
export const runtimeOf: (plan: CalmPlan) => ClientRuntime = /* @__PURE__ */ perObject(
  (plan: CalmPlan): ClientRuntime => {
    const cardinalities = plan.schema.attributes.map((a) => a.labels.length);
    return {
      oracles: plan.views.map((view) => {
        const factory = FACTORIES[view.oracle as keyof typeof FACTORIES];
        if (!factory)
          throw new InvalidParameterError(
            `createReport: oracle ${view.oracle} has no client in this package`,
          );
        return factory({ eps: plan.eps, domain: view.cells }) as DeviceOracle<unknown>;
      }),
      cardinalities: plan.views.map((view) => view.attributes.map((a) => cardinalities[a]!)),
    };
  },
);

/**
 * CALM's client step (§4.1): calm-core's `calmReportWith`, the code `calmReport`
 * runs, with the view oracles built by `createGrrDevice`/`createOueDevice`/`createSueDevice`
 * of @calm-ldp/frequency-oracles (the device side of the registry's own oracles: the same
 * cores, parameters and draws) instead of the registry, so the browser bundle holds only
 * these three oracles' client paths. O(d + cost of
 * one perturbation).
 * @internal
 */
export function perturbRecord(
  plan: CalmPlan,
  record: ArrayLike<number>,
  rng: Rng,
  view: number | undefined,
): CalmReport {
  const runtime = runtimeOf(plan);
  return calmReportWith(
    { oracles: runtime.oracles, viewCardinalities: runtime.cardinalities },
    plan,
    record,
    rng,
    view,
    "createReport",
  );
}

/** @internal calm-core's record check (one integer per attribute, in range), naming `where`. */
export { checkCalmRecord as checkRecord } from "@calm-ldp/calm-core";
