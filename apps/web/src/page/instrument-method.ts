import type { HarnessMethod } from "@calm-ldp/experiments";
import type { MarginalSynopsis, ProtocolParameters, ProtocolPlan } from "@calm-ldp/marginal-algebra";
import type { Rng } from "@calm-ldp/random";

/** Options of {@link instrumentMethod}. */
export interface InstrumentOptions {
  /**
   * When given, every perturbation (`report`, `simulate`, `simulatePerUser`) draws
   * from this source instead of the one the harness passes (e.g. `cryptoRng()`).
   */
  rng?: Rng;
  /** Called with each plan the method makes and the parameters it was made for. */
  onPlan?(plan: ProtocolPlan, parameters: ProtocolParameters): void;
  /** Called with each synopsis the method estimates, before the harness queries it. */
  onSynopsis?(synopsis: MarginalSynopsis, parameters: ProtocolParameters): void;
}

/**
 * The harness method `method`, unchanged in behaviour, but observed: its plans and
 * synopses are handed to the callbacks, and its perturbation randomness optionally
 * replaced. Without `rng`, results are bit-for-bit those of `method` (the
 * callbacks only read). Every other property passes through. O(1) per call.
 */
export function instrumentMethod(method: HarnessMethod, options: InstrumentOptions): HarnessMethod {
  let parameters: ProtocolParameters | undefined;
  const source = (rng: Rng): Rng => options.rng ?? rng;
  const overrides: Partial<Record<keyof HarnessMethod, unknown>> = {
    plan(p: ProtocolParameters) {
      parameters = p;
      const plan = method.plan(p);
      options.onPlan?.(plan, p);
      return plan;
    },
    report: (plan: ProtocolPlan, record: ArrayLike<number>, rng: Rng) =>
      method.report(plan, record, source(rng)),
    estimate(plan: ProtocolPlan, aggregator: Parameters<HarnessMethod["estimate"]>[1]) {
      const synopsis = method.estimate(plan, aggregator);
      options.onSynopsis?.(
        synopsis,
        parameters ?? { schema: plan.schema, n: plan.n, eps: plan.eps, k: plan.k },
      );
      return synopsis;
    },
  };
  if (method.simulate) {
    const simulate = method.simulate.bind(method);
    overrides.simulate = (plan: ProtocolPlan, data: Parameters<typeof simulate>[1], rng: Rng) =>
      simulate(plan, data, source(rng));
  }
  if (method.simulatePerUser) {
    const perUser = method.simulatePerUser.bind(method);
    overrides.simulatePerUser = (plan: never, data: Parameters<typeof perUser>[1], rng: Rng) =>
      perUser(plan, data, source(rng));
  }
  return new Proxy(method, {
    get(target, property, receiver) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof HarnessMethod];
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
