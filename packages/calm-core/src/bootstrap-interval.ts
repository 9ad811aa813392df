import { clip01 } from "./interval.js";

/** The q-quantile (0 <= q <= 1) of sorted values, linear between order statistics. */
function quantileOfSorted(sorted: Float64Array, q: number): number {
  const at = q * (sorted.length - 1);
  const low = Math.floor(at);
  const high = Math.min(sorted.length - 1, low + 1);
  return sorted[low]! + (at - low) * (sorted[high]! - sorted[low]!);
}

/**
 * Basic (reflected) parametric-bootstrap interval per cell: with the released
 * answer t and replicate answers t*_1..t*_B drawn from the fitted model,
 * [2t - Q(1 - alpha/2), 2t - Q(alpha/2)] (Q = quantile of the t*), which removes
 * the bias that non-negativity and maximum entropy add when the model is right;
 * standard error = sd of the t*. Clipped to [0, 1]. O(B |A| log B).
 */
export function bootstrapBounds(
  released: Float64Array,
  replicates: readonly Float64Array[],
  level: number,
): { lower: Float64Array; upper: Float64Array; standardError: Float64Array } {
  const cells = released.length;
  const B = replicates.length;
  const lower = new Float64Array(cells);
  const upper = new Float64Array(cells);
  const standardError = new Float64Array(cells);
  const values = new Float64Array(B);
  const alpha = 1 - level;
  for (let a = 0; a < cells; a++) {
    let mean = 0;
    for (let b = 0; b < B; b++) {
      values[b] = replicates[b]![a]!;
      mean += values[b]!;
    }
    mean /= B;
    let ss = 0;
    for (let b = 0; b < B; b++) ss += (values[b]! - mean) ** 2;
    standardError[a] = Math.sqrt(ss / Math.max(1, B - 1));
    values.sort();
    const t = released[a]!;
    lower[a] = clip01(2 * t - quantileOfSorted(values, 1 - alpha / 2));
    upper[a] = clip01(2 * t - quantileOfSorted(values, alpha / 2));
  }
  return { lower, upper, standardError };
}

/** Row-major sample covariance of replicate vectors (B >= 2). O(B |A|^2). */
export function replicateCovariance(replicates: readonly Float64Array[]): Float64Array {
  const B = replicates.length;
  const size = replicates[0]!.length;
  const mean = new Float64Array(size);
  for (const r of replicates) for (let a = 0; a < size; a++) mean[a]! += r[a]! / B;
  const out = new Float64Array(size * size);
  for (const r of replicates)
    for (let a = 0; a < size; a++) {
      const da = r[a]! - mean[a]!;
      for (let b = 0; b < size; b++) out[a * size + b]! += (da * (r[b]! - mean[b]!)) / (B - 1);
    }
  return out;
}
