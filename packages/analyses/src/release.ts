import { createMethod, queryInterval, runMethod } from "@calm-ldp/baselines";
import { CannotRunError } from "@calm-ldp/errors";
import type { RecordStore } from "@calm-ldp/marginal-algebra";
import type { Rng } from "@calm-ldp/random";
import type { Release } from "./api.js";

/**
 * Run every record of `store` through a method of `@calm-ldp/baselines` (CALM or
 * a baseline; count-level simulation where the method has it, per user otherwise)
 * at privacy budget `eps`, tuned for k-way queries, and answer `queries`. A
 * method that refuses the setting (too large, too few users) or fails returns its
 * error message instead of throwing. With `options.intervals`, also each answer
 * with its 95% interval and covariance where the method has them (baselines'
 * `INTERVAL_METHODS`; undefined for a query whose interval has no covariance,
 * i.e. CALM's bound-based intervals of maximum-entropy answers). Cost: the
 * method's own.
 */
export function releaseMarginals(
  id: string,
  store: RecordStore,
  eps: number,
  k: number,
  queries: readonly (readonly number[])[],
  rng: Rng,
  methodOptions: Readonly<Record<string, unknown>> = {},
  options: { readonly intervals?: boolean } = {},
): Release {
  try {
    const method = createMethod(id, methodOptions);
    const plan = method.plan({ schema: store.schema, n: store.size, eps, k });
    const { aggregator } = runMethod(method, plan, store, rng);
    const synopsis = method.estimate(plan, aggregator);
    const tables = queries.map((q) => synopsis.query(q));
    if (!options.intervals) return { tables };
    const intervals = queries.map((q) => {
      try {
        return queryInterval(id, synopsis, q, { interval: 0.95, covariance: true });
      } catch (error) {
        // CALM's maximum-entropy answers get bound-based intervals, which have no covariance.
        if (error instanceof CannotRunError) return undefined;
        throw error;
      }
    });
    return { tables, intervals };
  } catch (error) {
    return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}
