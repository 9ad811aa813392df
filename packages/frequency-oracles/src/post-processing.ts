import { fail } from "./errors.js";

/**
 * A post-processing step for an oracle's estimate: fractions in (any finite
 * values, non-empty), a table of non-negative cells summing to `total` (default
 * 1) out, written into `out` when given (a Float64Array of the same length; may
 * alias `estimate`), otherwise into a fresh array. Returns the output.
 */
export type PostProcessing = (
  estimate: ArrayLike<number>,
  total?: number,
  out?: Float64Array,
) => Float64Array;

/**
 * @internal A {@link PostProcessing} from its kernel: the shared defaults
 * (`total` 1, a fresh `out`) and argument checks (named after `where`), then
 * `kernel(estimate, total, out)`. O(D) on top of the kernel.
 */
export function postProcessing(
  where: string,
  kernel: (estimate: ArrayLike<number>, total: number, out: Float64Array) => void,
): PostProcessing {
  return (estimate, total = 1, out = new Float64Array(estimate?.length ?? 0)) => {
    checkPostProcessing(where, estimate, total, out);
    kernel(estimate, total, out);
    return out;
  };
}

function checkPostProcessing(
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
