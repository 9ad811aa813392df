import type { FrequencyOracle } from "@calm-ldp/frequency-oracles";

/** What the analytic path needs of one view. @internal */
export interface ViewNoiseInput {
  readonly attributes: readonly number[];
  readonly cardinalities: readonly number[];
  /** The oracle's unbiased estimate (fractions). */
  readonly raw: Float64Array;
  /** The released view (after consistency and non-negativity); clipped at 0 and normalised, the plug-in fractions of the variance. */
  readonly released: Float64Array;
  /** Reports in the view's group, N_V. */
  readonly reports: number;
  readonly oracle: FrequencyOracle;
}

/**
 * Covariance of one view's unbiased estimate f^ (fractions over its cells) as
 * diag(s) - sum_r a_r a_r^T, over both the oracle's noise and which users form
 * the group (a random part of the population), with N = N_V reports and f =
 * plug-in fractions:
 * - GRR: each user of a random group reports i.i.d. with law pi = q + (p - q) f,
 *   so the support counts are Multinomial(N, pi) and
 *   Cov(f^) = (diag(pi) - pi pi^T) / (N (p - q)^2) (sampling included);
 * - unary and hashing oracles (supports independent per cell given the users, as
 *   in `expectedQuerySse`): noise s_u = [f_u p(1-p) + (1-f_u) q(1-q)] / (N (p-q)^2)
 *   plus the group's sampling (diag(f) - f f^T) / N (together: the i.i.d. law,
 *   Var = pi_u (1 - pi_u) / (N (p-q)^2), Cov = -f_u f_w / N).
 * The groups' sampling errors sum to zero across a partition, which
 * {@link analyticAnswer} accounts for once per query (the -Sigma_A / n term).
 * O(cells).
 */
export function estimateCovariance(view: {
  /** Plug-in fractions (non-negative, summing to 1). */
  fitted: Float64Array;
  reports: number;
  oracle: FrequencyOracle;
}): {
  diag: Float64Array;
  rank1: Float64Array[];
} {
  const cells = view.fitted.length;
  const diag = new Float64Array(cells);
  if (view.reports === 0) return { diag, rank1: [] };
  const a = new Float64Array(cells);
  covarianceFactorsInto(view.fitted, cells, view.reports, view.oracle, diag, a, 0);
  return { diag, rank1: [a] };
}

/**
 * {@link estimateCovariance} of plug-in fractions f[0..cells) written into `diag`
 * and `rank` (its one rank-1 factor a: Cov = diag(s) - a a^T) from `offset` on;
 * nothing when N = 0. O(cells). @internal
 */
export function covarianceFactorsInto(
  f: Float64Array,
  cells: number,
  N: number,
  oracle: FrequencyOracle,
  diag: Float64Array,
  rank: Float64Array,
  offset: number,
): void {
  const { p, q } = oracle;
  if (N === 0) return;
  const scale = N * (p - q) ** 2;
  const mechanism = oracle.mechanism;
  if (mechanism === "grr" || mechanism === "rr") {
    // Users of a random group report i.i.d. with law pi: the multinomial already holds the group's sampling.
    const root = Math.sqrt(scale);
    for (let u = 0; u < cells; u++) {
      const pi = q + (p - q) * f[u]!;
      diag[offset + u] = pi / scale;
      rank[offset + u] = pi / root;
    }
    return;
  }
  const noiseIn = p * (1 - p);
  const noiseOut = q * (1 - q);
  const root = Math.sqrt(1 / N);
  for (let u = 0; u < cells; u++) {
    const fu = f[u]!;
    diag[offset + u] = (fu * noiseIn + (1 - fu) * noiseOut) / scale + fu / N;
    rank[offset + u] = fu * root;
  }
}
