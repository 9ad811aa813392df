import { normSubCells } from "@calm-ldp/marginal-algebra";
import { type PostProcessing, postProcessing } from "./post-processing.js";

/**
 * Norm-Sub (Wang, Lopuhaä-Zwakenberg et al., "Locally differentially private
 * frequency estimation with consistency", NDSS 2020): repeatedly set negative
 * cells to 0 and subtract the same amount from every positive cell so the cells
 * sum to `total` (default 1), until no cell is negative. Cells set to 0 stay 0.
 * When the positive cells of the input sum to at least `total` (the usual case
 * for unbiased estimates) the result equals {@link projectOntoSimplex}: the cells
 * are `max(x - delta, 0)` with `sum = total`. Fractions in and out; writes into
 * `out` when given (may alias). The kernel is marginal-algebra's `normSubCells`.
 * O(D) per round, at most D rounds.
 */
export const normSub: PostProcessing = /* @__PURE__ */ postProcessing("normSub", (estimate, total, out) => {
  for (let i = 0; i < estimate.length; i++) out[i] = estimate[i]!;
  normSubCells(out, total);
});
