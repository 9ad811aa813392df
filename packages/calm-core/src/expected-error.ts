import type { MarginalTable } from "@calm-ldp/marginal-algebra";
import type { CalmPlan } from "./api.js";
import { invalid } from "./errors.js";
import { planRuntime } from "./runtime.js";

/** The analytical error of a covered query, split into its sources. */
export interface ExpectedError {
  /** Expected SSE from the oracles' noise. */
  noise: number;
  /** Expected SSE from the group being a sample of the population. */
  sampling: number;
  /** noise + sampling. */
  total: number;
  /** Number of views containing the query (their estimates are averaged by consistency). */
  views: number;
}

/**
 * Expected SSE of CALM's answer to a query A that at least one view covers, before
 * non-negativity (which only lowers it): for each view V containing A, with
 * N_V = n/m users and C = |V|/|A| view cells summed into each query cell a,
 * - noise: Var(f^_a) = [f_a v_in + (1 - f_a) v_out] / (N_V (p - q)^2), where a user
 *   holding a cell of S_a supports S_a with variance v_in and any other user with
 *   v_out: GRR (one supported value) v_in = pi_in (1 - pi_in), pi_in = p + (C-1) q,
 *   v_out = pi_out (1 - pi_out), pi_out = C q; unary and hashing oracles
 *   (independent supports) v_in = p(1-p) + (C-1) q(1-q), v_out = C q(1-q);
 *   (these are variances given the group's users, so the group's sampling below
 *   is a separate term: noise + sampling is the i.i.d. law pi (1 - pi) / (N_V (p - q)^2),
 *   counted once; the test checks it where sampling exceeds the noise term);
 * - sampling: the group's marginal differs from the population's,
 *   Var = f_a (1 - f_a) / N_V * (n - N_V) / (n - 1);
 * and the s views containing A are averaged with CALM's weights w_i proportional
 * to 1/C_i (../../../docs/algorithms.md#consistency): Var = sum_i w_i^2 Var_i. SSE sums over the cells.
 * `truth` is the population marginal over A (fractions). O(m + s |V|).
 */
export function expectedQuerySse(plan: CalmPlan, truth: MarginalTable): ExpectedError {
  const query = truth.attributes;
  const containing = plan.views
    .map((view, index) => ({ view, index }))
    .filter(({ view }) => query.every((a) => view.attributes.includes(a)));
  if (containing.length === 0)
    invalid("expectedQuerySse", "the query must be covered by a view", JSON.stringify(query));
  const total = truth.cells.reduce((s, x) => s + x, 0);
  const runtime = planRuntime(plan);
  const groupSize = plan.n / plan.views.length;
  const fpc = plan.n > 1 ? (plan.n - groupSize) / (plan.n - 1) : 0;
  const queryCells = truth.cells.length;
  const weights = containing.map(({ view }) => queryCells / view.cells); // 1 / C_i
  const weightSum = weights.reduce((s, w) => s + w, 0);
  let noise = 0;
  let sampling = 0;
  containing.forEach(({ view, index }, i) => {
    const oracle = runtime.oracles[index]!;
    const { p, q } = oracle;
    const c = view.cells / queryCells;
    const w = weights[i]! / weightSum;
    const scale = groupSize * (p - q) ** 2;
    for (const cell of truth.cells) {
      const f = cell / total;
      let vIn: number;
      let vOut: number;
      if (oracle.mechanism === "grr" || oracle.mechanism === "rr") {
        const piIn = p + (c - 1) * q;
        const piOut = c * q;
        vIn = piIn * (1 - piIn);
        vOut = piOut * (1 - piOut);
      } else {
        vIn = p * (1 - p) + (c - 1) * q * (1 - q);
        vOut = c * q * (1 - q);
      }
      noise += w * w * ((f * vIn + (1 - f) * vOut) / scale);
      sampling += w * w * ((f * (1 - f) * fpc) / groupSize);
    }
  });
  return { noise, sampling, total: noise + sampling, views: containing.length };
}
