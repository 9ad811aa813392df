import type { MarginalTable } from "@calm-ldp/marginal-algebra";
import type { Rng } from "@calm-ldp/random";
import type { SampleOptions, SyntheticRecords } from "./api.js";
import { marginalModel } from "./marginal-model.js";
import { sampleModel } from "./sample-model.js";

/**
 * `n` independent synthetic records drawn from one released marginal table (a
 * k-way marginal as any method releases it: fractions or counts; negative cells
 * count as 0 and the rest is normalised). Shorthand for
 * `sampleModel(marginalModel(table), n, rng, options)`. Each record costs one
 * 32-bit word and a binary search over the |V_A| cells: O(|V_A| + n (k + log |V_A|)).
 */
export function sampleMarginal(
  table: MarginalTable,
  n: number,
  rng: Rng,
  options: SampleOptions = {},
): SyntheticRecords {
  return sampleModel(marginalModel(table), n, rng, options);
}
