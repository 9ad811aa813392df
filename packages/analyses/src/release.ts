import { createMethod, runMethod } from "@calm-ldp/baselines";
import type { RecordStore } from "@calm-ldp/marginal-algebra";
import type { Rng } from "@calm-ldp/random";
import type { Release } from "./api.js";

/**
 * Run every record of `store` through a method of `@calm-ldp/baselines` (CALM or
 * a baseline; count-level simulation where the method has it, per user otherwise)
 * at privacy budget `eps`, tuned for k-way queries, and answer `queries`. A
 * method that refuses the setting (too large, too few users) or fails returns its
 * error message instead of throwing. Cost: the method's own.
 */
export function releaseMarginals(
  id: string,
  store: RecordStore,
  eps: number,
  k: number,
  queries: readonly (readonly number[])[],
  rng: Rng,
  methodOptions: Readonly<Record<string, unknown>> = {},
): Release {
  try {
    const method = createMethod(id, methodOptions);
    const plan = method.plan({ schema: store.schema, n: store.size, eps, k });
    const { aggregator } = runMethod(method, plan, store, rng);
    const synopsis = method.estimate(plan, aggregator);
    return { tables: queries.map((q) => synopsis.query(q)) };
  } catch (error) {
    return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}
