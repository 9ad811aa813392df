import type { LoadedDataset } from "@calm-ldp/datasets";
import { fail } from "@calm-ldp/errors";

/** The fields every analysis runner shares. */
interface CommonConfig {
  readonly n: number | readonly number[];
  readonly eps: readonly number[];
  readonly methods: readonly string[];
  readonly reps: number;
  readonly seed: number;
}

/** @internal Check the settings every analysis runner shares. O(settings). */
export function checkAnalysis(where: string, config: CommonConfig, population: LoadedDataset): void {
  if (!population?.store || !population.schema)
    fail(where, "population must be a loaded dataset", population);
  if (population.store.size < 2)
    fail(where, "the population must have at least 2 rows", population.store.size);
  const ns = typeof config.n === "number" ? [config.n] : config.n;
  if (!Array.isArray(ns) || ns.length === 0) fail(where, "n must be a non-empty list", config.n);
  for (const n of ns)
    if (!(Number.isSafeInteger(n) && n >= 2)) fail(where, "every n must be an integer >= 2", n);
  if (!Array.isArray(config.eps) || config.eps.length === 0)
    fail(where, "eps must be a non-empty list", config.eps);
  for (const eps of config.eps)
    if (!(Number.isFinite(eps) && eps > 0)) fail(where, "every eps must be a finite number > 0", eps);
  if (!Array.isArray(config.methods)) fail(where, "methods must be a list of method ids", config.methods);
  if (!(Number.isSafeInteger(config.reps) && config.reps >= 1))
    fail(where, "reps must be an integer >= 1", config.reps);
  if (!(Number.isSafeInteger(config.seed) && config.seed >= 0))
    fail(where, "seed must be a safe integer >= 0", config.seed);
}
