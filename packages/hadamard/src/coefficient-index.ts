import { binomialTable } from "@calm-ldp/random";
import type { CoefficientIndex } from "./api.js";
import { fail } from "./errors.js";

/**
 * `|T| = sum_{w=1..k} C(d, w)`: the number of Hadamard coefficients `alpha` with
 * `1 <= |alpha| <= k` out of `d` bits (../../../docs/algorithms.md#hadamard-methods, the set InpHT samples
 * from). O(k).
 */
export function coefficientCount(d: number, k: number): number {
  checkDk("coefficientCount", d, k);
  let total = 0n;
  let term = 1n;
  for (let w = 1; w <= k; w++) {
    term = (term * BigInt(d - w + 1)) / BigInt(w); // exact: C(d, w) = C(d, w - 1) (d - w + 1) / w
    total += term;
  }
  if (total > BigInt(Number.MAX_SAFE_INTEGER))
    fail("coefficientCount", "the count must be below 2^53", total);
  return Number(total);
}

function checkDk(where: string, d: number, k: number): void {
  if (!Number.isSafeInteger(d) || d < 1 || d > 4096) fail(where, "d must be an integer in [1, 4096]", d);
  if (!Number.isSafeInteger(k) || k < 1 || k > d) fail(where, `k must be an integer in [1, d = ${d}]`, k);
}

/**
 * The ranking of `{alpha : 1 <= |alpha| <= k}` out of `d` bits (see
 * {@link CoefficientIndex}): `rank(alpha) = offset(|alpha|) + sum_i C(c_i, i)` for
 * `alpha = {c_1 < c_2 < ... < c_w}` (combinatorial number system, Knuth TAOCP
 * 7.2.1.3), with `offset(w) = sum_{u < w} C(d, u)` over `u >= 1`. Building it costs
 * O(d k) for a binomial table; `rank` is O(|alpha|), `unrank` O(|alpha| log d): a
 * binary search per element over a column of the table (<= 6 steps for d <= 64).
 * Inverting C(c, i) ~ (c - (i-1)/2)^i / i! with `Math.pow` would make it O(|alpha|),
 * but measured 3x slower at d = 32, k = 8 (pow costs more than six look-ups).
 */
export function createCoefficientIndex(d: number, k: number): CoefficientIndex {
  checkDk("createCoefficientIndex", d, k);
  const size = coefficientCount(d, k);
  const width = k + 1;
  const binom = binomialTable(d, k);
  // offsets[w] = number of subsets of weight 1..w-1; offsets[k + 1] = size.
  const offsets = new Float64Array(k + 2);
  for (let w = 1; w <= k; w++) offsets[w + 1] = offsets[w]! + binom[d * width + w]!;

  const weightOf = (rank: number): number => {
    if (!Number.isSafeInteger(rank) || rank < 0 || rank >= size) {
      fail("CoefficientIndex.weightOf", `rank must be an integer in [0, ${size})`, rank);
    }
    let lo = 1;
    let hi = k;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (offsets[mid]! <= rank) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };

  return {
    d,
    k,
    size,
    rank(alpha: ArrayLike<number>): number {
      const w = alpha.length;
      if (w < 1 || w > k) fail("CoefficientIndex.rank", `|alpha| must be in [1, k = ${k}]`, w);
      let rank = offsets[w]!;
      let previous = -1;
      for (let i = 0; i < w; i++) {
        const c = alpha[i]!;
        if (!Number.isInteger(c) || c <= previous || c >= d) {
          fail(
            "CoefficientIndex.rank",
            `alpha must be strictly ascending integers in [0, d = ${d})`,
            Array.from(alpha),
          );
        }
        rank += binom[c * width + i + 1]!;
        previous = c;
      }
      return rank;
    },
    unrank(rank: number, out: number[] = []): number[] {
      const w = weightOf(rank);
      let rest = rank - offsets[w]!;
      out.length = w;
      let upper = d - 1;
      for (let i = w; i >= 1; i--) {
        // c_i = the largest c in [i - 1, upper] with C(c, i) <= rest.
        let lo = i - 1;
        let hi = upper;
        while (lo < hi) {
          const mid = (lo + hi + 1) >>> 1;
          if (binom[mid * width + i]! <= rest) lo = mid;
          else hi = mid - 1;
        }
        out[i - 1] = lo;
        rest -= binom[lo * width + i]!;
        upper = lo - 1;
      }
      return out;
    },
    weightOf,
  };
}
