/**
 * Scaling of the Walsh-Hadamard transform of a length-D vector (D = 2^m):
 * - `"none"`: `y = H x` with `H[a][j] = (-1)^{popcount(a & j)}` (entries +-1, no factor);
 * - `"orthonormal"`: `y = D^{-1/2} H x` (an involution: applying it twice returns x);
 * - `"inverse"`: `y = D^{-1} H x`, the inverse of `"none"`.
 */
export type FwhtScaling = "none" | "orthonormal" | "inverse";

/** Options of {@link fwht}. */
export interface FwhtOptions {
  /** Default `"none"` (unnormalised). */
  scaling?: FwhtScaling;
}

/**
 * The ranking of the Hadamard coefficient index set
 * `T = { alpha ⊆ {0..d-1} : 1 <= |alpha| <= k }` onto the integers `0 .. size-1`:
 * by weight first (all `|alpha| = 1`, then `|alpha| = 2`, ...), and within one
 * weight by the combinatorial number system (colex order), so a sampled coefficient
 * travels as one small integer. Subsets are attribute indices, strictly ascending.
 */
export interface CoefficientIndex {
  /** Number of bits (attributes). */
  readonly d: number;
  /** Largest weight |alpha|. */
  readonly k: number;
  /** `|T| = sum_{w=1..k} C(d, w)`. */
  readonly size: number;
  /** Rank of `alpha` (strictly ascending attribute indices, 1 <= |alpha| <= k). O(|alpha|). */
  rank(alpha: ArrayLike<number>): number;
  /**
   * The subset of rank `rank`, ascending; written into `out` (its length set to
   * |alpha|) when given. O(|alpha| log d).
   */
  unrank(rank: number, out?: number[]): number[];
  /** Weight |alpha| of the subset of rank `rank`. O(log k). */
  weightOf(rank: number): number;
}
