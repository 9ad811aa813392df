import { createTable, type MarginalTable, projectTable } from "@calm-ldp/marginal-algebra";
import type { Rng } from "@calm-ldp/random";

/**
 * A random joint distribution over k attributes with cardinality c: pairwise
 * log-linear couplings uniform in (-1, 1) times an Exp(1) factor per cell (so
 * there are higher-order interactions too), and its projections onto every pair
 * of attributes: mutually consistent views whose maximum-entropy completion is
 * not the joint itself. A fixture for benchmarks and tests of reconstruction (the
 * CLI's maxent-bench uses it). O(c^k k^2).
 */
export function randomPairViews(
  rng: Rng,
  k: number,
  c: number,
): { joint: MarginalTable; views: MarginalTable[] } {
  const attributes = Array.from({ length: k }, (_, i) => i);
  const joint = createTable(attributes, new Array(k).fill(c));
  const couplings: Float64Array[] = [];
  for (let p = 0; p < (k * (k - 1)) / 2; p++)
    couplings.push(Float64Array.from({ length: c * c }, () => 2 * rng.nextFloat() - 1));
  const values = new Array<number>(k).fill(0);
  let sum = 0;
  for (let u = 0; u < joint.cells.length; u++) {
    let rest = u;
    for (let i = k - 1; i >= 0; i--) {
      values[i] = rest % c;
      rest = (rest - values[i]!) / c;
    }
    let energy = 0;
    let p = 0;
    for (let i = 0; i < k; i++)
      for (let j = i + 1; j < k; j++) energy += couplings[p++]![values[i]! * c + values[j]!]!;
    joint.cells[u] = Math.exp(energy) * -Math.log(1 - rng.nextFloat());
    sum += joint.cells[u]!;
  }
  for (let u = 0; u < joint.cells.length; u++) joint.cells[u] /= sum;
  const views: MarginalTable[] = [];
  for (let i = 0; i < k; i++) for (let j = i + 1; j < k; j++) views.push(projectTable(joint, [i, j]));
  return { joint, views };
}
