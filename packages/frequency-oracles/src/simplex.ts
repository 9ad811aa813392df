import { type PostProcessing, postProcessing } from "./post-processing.js";

/**
 * Euclidean projection onto the simplex { x >= 0, sum x = total } (default total
 * 1): `x_i = max(v_i - theta, 0)` with theta chosen so the cells sum to `total`,
 * found by sorting (Held, Wolfe and Crowder 1974; Duchi et al., ICML 2008): the
 * closest distribution to the estimate in squared error. Fractions in and out;
 * writes into `out` when given (may alias). O(D log D).
 */
export const projectOntoSimplex: PostProcessing = /* @__PURE__ */ postProcessing(
  "projectOntoSimplex",
  (estimate, total, out) => {
    const sorted = Float64Array.from(estimate).sort().reverse();
    let cumulative = 0;
    let theta = 0;
    for (let j = 0; j < sorted.length; j++) {
      cumulative += sorted[j]!;
      const candidate = (cumulative - total) / (j + 1);
      if (sorted[j]! - candidate > 0) theta = candidate;
    }
    for (let i = 0; i < estimate.length; i++) out[i] = Math.max(estimate[i]! - theta, 0);
  },
);
