import { fail } from "./errors.js";

/*
 * The argument checks the hypothesis tests (chiSquareIndependence, noiseAwareChiSquare,
 * noiseAwareGoodnessOfFit) share, each naming the calling function in its message. O(1).
 */

/** `alpha` (default 0.05), checked to lie in (0, 1). */
export function significanceLevel(where: string, alpha: number | undefined): number {
  const level = alpha ?? 0.05;
  if (!(level > 0 && level < 1)) fail(where, "alpha must be in (0, 1)", level);
  return level;
}

/** `n`, the number of users a table describes, checked to be a finite number > 0. */
export function userCount(where: string, n: number): number {
  if (!(Number.isFinite(n) && n > 0)) fail(where, "n must be a finite number > 0", n);
  return n;
}

/** Checks that a private answer carries the `size x size` covariance of its cells. */
export function checkCovariance(where: string, covariance: Float64Array | undefined, size: number): void {
  if (covariance?.length !== size * size)
    fail(
      where,
      `covariance must have ${size * size} entries (ask the query for covariance: true)`,
      covariance?.length,
    );
}
