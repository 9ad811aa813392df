import type { ExperimentConfig } from "./api.js";
import { invalid } from "./errors.js";

/** Validate an experiment configuration, naming the first field that is wrong. O(|eps| + |methods|). */
export function validateConfig(config: ExperimentConfig, knownMethods?: readonly string[]): ExperimentConfig {
  const where = "validateConfig";
  if (typeof config.data !== "string" || config.data === "")
    invalid(where, "data must be a dataset spec", config.data);
  if (!Number.isSafeInteger(config.n) || config.n < 1) invalid(where, "n must be an integer >= 1", config.n);
  if (!Number.isSafeInteger(config.d) || config.d < 1) invalid(where, "d must be an integer >= 1", config.d);
  if (!Number.isSafeInteger(config.k) || config.k < 1 || config.k > config.d)
    invalid(where, `k must be an integer in [1, d = ${config.d}]`, config.k);
  if (!Array.isArray(config.eps) || config.eps.length === 0)
    invalid(where, "eps must be a non-empty list", config.eps);
  for (const eps of config.eps)
    if (!(Number.isFinite(eps) && eps > 0)) invalid(where, "every eps must be a finite number > 0", eps);
  if (!Array.isArray(config.methods) || config.methods.length === 0)
    invalid(where, "methods must be a non-empty list", config.methods);
  if (new Set(config.methods).size !== config.methods.length)
    invalid(where, "methods must not repeat", config.methods);
  if (knownMethods)
    for (const m of config.methods)
      if (!knownMethods.includes(m)) invalid(where, `unknown method; known: ${knownMethods.join(", ")}`, m);
  if (config.queries !== "all" && !(Number.isSafeInteger(config.queries) && config.queries >= 1))
    invalid(where, 'queries must be an integer >= 1 or "all"', config.queries);
  if (!Number.isSafeInteger(config.reps) || config.reps < 1)
    invalid(where, "reps must be an integer >= 1", config.reps);
  if (!Number.isSafeInteger(config.seed) || config.seed < 0)
    invalid(where, "seed must be a safe integer >= 0", config.seed);
  if (config.path !== undefined && config.path !== "counts" && config.path !== "per-user")
    invalid(where, 'path must be "counts" or "per-user"', config.path);
  if (config.c !== undefined && !(Number.isInteger(config.c) && config.c >= 2))
    invalid(where, "c must be an integer >= 2", config.c);
  if (config.interval !== undefined && !(config.interval > 0 && config.interval < 1))
    invalid(where, "interval must be a confidence level in (0, 1)", config.interval);
  return config;
}
