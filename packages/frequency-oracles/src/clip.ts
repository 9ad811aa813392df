import { fail } from "./errors.js";

/**
 * Clip-and-renormalise: set negative estimates to 0 and scale the rest so the
 * cells sum to `total` (default 1; all-zero input gives the uniform table).
 * Input and output are fractions (Float64Array); writes into `out` when given
 * (may alias `estimate`). O(D).
 */
export function clipAndRenormalise(
  estimate: ArrayLike<number>,
  total = 1,
  out: Float64Array = new Float64Array(estimate.length),
): Float64Array {
  checkPostProcessing("clipAndRenormalise", estimate, total, out);
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
  return out;
}

/** @internal Shared argument checks of the post-processing helpers. */
export function checkPostProcessing(
  where: string,
  estimate: ArrayLike<number>,
  total: number,
  out: Float64Array,
): void {
  if (estimate == null || typeof estimate.length !== "number" || estimate.length === 0) {
    fail(where, "estimate must be a non-empty array-like of numbers", estimate);
  }
  for (let i = 0; i < estimate.length; i++) {
    if (!Number.isFinite(estimate[i]!)) fail(where, `estimate[${i}] must be finite`, estimate[i]);
  }
  if (!(total > 0) || !Number.isFinite(total)) fail(where, "total must be a finite number > 0", total);
  if (!(out instanceof Float64Array) || out.length !== estimate.length) {
    fail(where, `out must be a Float64Array of ${estimate.length} cells`, out?.length);
  }
}
