/** calm-plus's answers with the pooled estimator: maximum entropy over the views and the predicted pairs. */
import type { MarginalTable } from "@calm-ldp/marginal-algebra";
import { type MaxEntropyOptions, maxEntropy } from "@calm-ldp/reconstruction";
import type { CalmPlan } from "../api.js";
import { CannotRunError, invalid } from "../errors.js";
import type { CalmAnswer } from "../estimate.js";
import type { CalmPlusEstimateOptions, CalmPlusOrderShrinkage } from "./api.js";
import { priorPair } from "./pair-prior.js";
import type { Pooled } from "./pooled.js";

/**
 * The pooled estimator's answer to a query: the maximum-entropy table over the
 * query's attributes (`maxEntropy`: projection when a view holds them all) with
 * the views as constraints plus, with `unmeasuredPairs` "prior", every query pair
 * no view holds at its empirical-Bayes prediction (`priorPair`). Unmeasured pairs
 * are predicted only when the measured ones are mostly alike: mu_2^2 >= A_2 (the
 * centre explains at least half of their second moment); otherwise maximum
 * entropy's chains through measured pairs carry more. Negative cells (the loop
 * stops at cells >= -1e-12 |total|) are released as exact zeros. Refuses
 * (`CannotRunError`) a table above `maxQueryCells`. Cost per query: maxEntropy's
 * plus O(c_a c_b (c_a + c_b)) per predicted pair; building it O(m l^2).
 */
export function pooledAnswer(
  plan: CalmPlan,
  views: readonly MarginalTable[],
  pooled: Map<string, Pooled>,
  orders: readonly CalmPlusOrderShrinkage[],
  options: CalmPlusEstimateOptions,
  maxQueryCells: number,
): (attributes: readonly number[]) => CalmAnswer {
  const cardinalities = plan.schema.attributes.map((a) => a.labels.length);
  const maxEntropyOptions: MaxEntropyOptions = { ...(options.maxEntropy ?? {}), cardinalities };
  const unmeasured = options.unmeasuredPairs ?? "prior";
  if (unmeasured !== "prior" && unmeasured !== "independence")
    invalid("estimateCalmPlus", 'unmeasuredPairs must be "prior" or "independence"', unmeasured);
  const pairs = orders.find((o) => o.order === 2);
  const pairCenter = pairs && pairs.center * pairs.center >= pairs.signalVariance ? pairs.center : 0;
  const covered = new Set<string>();
  for (const view of plan.views)
    for (const a of view.attributes) for (const b of view.attributes) if (a < b) covered.add(`${a},${b}`);
  return (attributes) => {
    let cells = 1;
    for (const a of attributes) cells *= cardinalities[a] ?? 1;
    if (cells > maxQueryCells)
      throw new CannotRunError(
        `calm-plus: the query over ${attributes.length} attributes needs a table of ${cells} cells, above maxQueryCells = ${maxQueryCells}`,
      );
    const constraints = [...views];
    if (unmeasured === "prior" && pairCenter !== 0) {
      const sorted = [...attributes].sort((x, y) => x - y);
      for (let i = 0; i < sorted.length; i++)
        for (let j = i + 1; j < sorted.length; j++) {
          const [a, b] = [sorted[i]!, sorted[j]!];
          if (covered.has(`${a},${b}`) || cardinalities[a] === undefined || cardinalities[b] === undefined)
            continue;
          constraints.push(priorPair(a, b, cardinalities[a]!, cardinalities[b]!, pooled, pairCenter));
        }
    }
    const diagnostics = maxEntropy(constraints, attributes, maxEntropyOptions);
    // The non-negativity loop stops at cells >= -1e-12 |total|; release exact zeros instead.
    const released = diagnostics.table.cells;
    for (let i = 0; i < released.length; i++) if (released[i]! < 0) released[i] = 0;
    return {
      table: diagnostics.table,
      method: diagnostics.method === "projection" ? "projection" : "maxent",
      diagnostics,
    };
  };
}
