import { type PostProcessing, postProcessing } from "./post-processing.js";

/**
 * Clip-and-renormalise: set negative estimates to 0 and scale the rest so the
 * cells sum to `total` (default 1; all-zero input gives the uniform table).
 * Input and output are fractions (Float64Array); writes into `out` when given
 * (may alias `estimate`). O(D).
 */
export const clipAndRenormalise: PostProcessing = /* @__PURE__ */ postProcessing(
  "clipAndRenormalise",
  (estimate, total, out) => {
    let sum = 0;
    for (let i = 0; i < estimate.length; i++) {
      const value = Math.max(0, estimate[i]!);
      out[i] = value;
      sum += value;
    }
    if (sum > 0) {
      const scale = total / sum;
      for (let i = 0; i < out.length; i++) out[i]! *= scale;
    } else {
      out.fill(total / out.length);
    }
  },
);
