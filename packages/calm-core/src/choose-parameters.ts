import { coverDesignSize } from "@calm-ldp/covering-design";
import { binomialCoefficient } from "@calm-ldp/random";
import { invalid } from "./errors.js";
import { noiseError, samplingError } from "./noise-error.js";

/** Inputs of {@link chooseParameters}. */
export interface ParameterInputs {
  /** Number of users. */
  n: number;
  /** Cardinality of every attribute (length d; all 2 for binary data). */
  cardinalities: readonly number[];
  /** Privacy budget per user. */
  eps: number;
  /** Target query size. */
  k: number;
  /** Error threshold theta (default 0.001). */
  theta?: number;
  /** Covering-design size function (default: `coverDesignSize` of @calm-ldp/covering-design), for tests. */
  coverSize?: (v: number, blockSize: number, t: number) => number;
}

/** One (l, m) pair Algorithm 1 weighed, with its two error terms. */
export interface ParameterCandidate {
  l: number;
  m: number;
  /** k * NE(n, d, eps, l). */
  kNE: number;
  /** SE(n, m) = m / n. */
  SE: number;
}

/** What Algorithm 1 chose, and why. */
export interface ParameterChoice {
  /** View size. */
  l: number;
  /** Number of views (user groups). */
  m: number;
  theta: number;
  /** m_u = floor(theta n): the most views the sampling-error budget allows. */
  mU: number;
  /** l_u: the largest l with k NE(l) <= theta (at least 2). */
  lU: number;
  /** l_b: the smallest l >= k whose covering design fits in m_u views (l_u when step 5 is not reached). */
  lB: number;
  /** Whether the chosen views must cover every k-subset (l >= k and step 5 chose a covering design). */
  covering: boolean;
  /** The pairs compared in step 5 (or the single choice of steps 2 and 4). */
  candidates: ParameterCandidate[];
}

/** C(n, r): exact up to 2^53 - 1, `Infinity` above (the one definition, from @calm-ldp/random). */
export { binomialCoefficient };

/**
 * CALM's Algorithm 1 (Zhang et al., CCS 2018, §4.3; ../../../docs/algorithms.md#choosing-the-view-size-and-the-number-of-views): choose the
 * view size l and the number of views m from n, d, eps, k and theta.
 *
 * m_u = floor(theta n); l_u grows from 2 while k NE(l_u + 1) <= theta. If l_u < k,
 * return (l_u, min(m_u, C(d, l_u))). Otherwise l_b shrinks from l_u while
 * l_b > k and CoverDesign(d, k, l_b - 1) <= m_u; if l_b = l_u return
 * (l_u, min(m_u, C(d, l_u))); else pick the l_t in [l_b, l_u] minimising
 * max(SE(n, CoverDesign(d, k, l_t)), k NE(l_t)), with m = CoverDesign(d, k, l_t).
 * CoverDesign(d, k, l) is the size of a covering design of the k-subsets of d
 * points by l-subsets. Cost: O(d^2) NE evaluations plus the covering-design sizes.
 */
export function chooseParameters(inputs: ParameterInputs): ParameterChoice {
  const { n, cardinalities, eps, k } = inputs;
  const theta = inputs.theta ?? 0.001;
  const coverSize = inputs.coverSize ?? coverDesignSize;
  const d = cardinalities.length;
  if (!Number.isSafeInteger(n) || n < 1) invalid("chooseParameters", "n must be an integer >= 1", n);
  if (!(Number.isFinite(eps) && eps > 0)) invalid("chooseParameters", "eps must be a finite number > 0", eps);
  if (!(Number.isFinite(theta) && theta > 0))
    invalid("chooseParameters", "theta must be a finite number > 0", theta);
  if (d < 2) invalid("chooseParameters", "the schema needs at least 2 attributes", d);
  if (!Number.isInteger(k) || k < 1 || k > d)
    invalid("chooseParameters", `k must be an integer in [1, d = ${d}]`, k);
  for (const c of cardinalities) {
    if (!Number.isInteger(c) || c < 2)
      invalid("chooseParameters", "every cardinality must be an integer >= 2", c);
  }

  const kNE = (l: number) => k * noiseError(n, cardinalities, eps, l);
  const mU = Math.floor(theta * n);
  let lU = 2;
  while (lU + 1 <= d && kNE(lU + 1) <= theta) lU++;

  const single = (l: number): ParameterChoice => {
    const m = Math.min(mU, binomialCoefficient(d, l));
    return {
      l,
      m,
      theta,
      mU,
      lU,
      lB: l,
      covering: false,
      candidates: [{ l, m, kNE: kNE(l), SE: samplingError(n, m) }],
    };
  };
  if (lU < k) return single(lU);

  let lB = lU;
  while (lB > k && coverSize(d, lB - 1, k) <= mU) lB--;
  if (lB === lU) return single(lU);

  let bestError = 1;
  let best = { l: lU, m: mU };
  const candidates: ParameterCandidate[] = [];
  for (let lt = lB; lt <= lU; lt++) {
    const mt = coverSize(d, lt, k);
    const candidate = { l: lt, m: mt, kNE: kNE(lt), SE: samplingError(n, mt) };
    candidates.push(candidate);
    const error = Math.max(candidate.SE, candidate.kNE);
    if (error < bestError) {
      bestError = error;
      best = { l: lt, m: mt };
    }
  }
  return { l: best.l, m: best.m, theta, mU, lU, lB, covering: true, candidates };
}
