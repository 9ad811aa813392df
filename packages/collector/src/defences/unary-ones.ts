import { type CalmPlan, normalQuantile } from "@calm-ldp/calm-core";
import { planCountRules } from "./unary-report-check.js";

/** A round's statistical flag: its unary views' numbers of ones are off what honest reports give. */
export interface UnaryOnesFlag {
  readonly kind: "unary-ones";
  /** The unary views tested (those with at least 30 reports). */
  readonly views: readonly number[];
  /** Per tested view: (ones - N mu) / sqrt(N sigma^2). */
  readonly z: readonly number[];
  /** sum of z^2 over the tested views (chi-square with `views.length` degrees of freedom when honest). */
  readonly chiSquare: number;
  /** The chi-square quantile at 1 - alpha beyond which the round is flagged. */
  readonly threshold: number;
}

/** Default chance that an honest round gets the flag. */
export const UNARY_ONES_FALSE_POSITIVE_RATE = 0.01;

/**
 * Wilson-Hilferty chi-square quantile with `df` degrees of freedom at probability
 * `level`: df (1 - 2/(9 df) + z sqrt(2/(9 df)))^3, z = Phi^-1(level); within 1% of
 * the exact quantile for df >= 3 at level 0.99. O(1).
 */
export function chiSquareQuantile(df: number, level: number): number {
  const z = normalQuantile(level);
  const a = 2 / (9 * df);
  return df * (1 - a + z * Math.sqrt(a)) ** 3;
}

/**
 * Test the number of ones of a round's unary views (OUE/SUE) against honest
 * reports. An honest report of a view of c cells sets its true bit with
 * probability p and each of the c - 1 others with probability q, whatever its
 * record, so its count of ones has mean mu = p + (c - 1) q and variance
 * sigma^2 = p (1 - p) + (c - 1) q (1 - q); the view's total, sum_x C(x) over its
 * N reports, is a sum of N such counts, so z_v = (sum_x C(x) - N mu) / sqrt(N sigma^2)
 * is about standard normal and sum_v z_v^2 is about chi-square with (tested views)
 * degrees of freedom. The round is flagged when that sum exceeds its 1 - alpha
 * quantile: an honest round is flagged with probability about alpha.
 * Maximal-gain fakes setting every bit that matches the target (two or more in a
 * view holding part of the target) raise the ones of those views and, padded to
 * round(mu), lower the others: flagged at beta = 0.05 in the probe.
 * A fake keeping exactly the honest count is not seen (see docs/threat-model.md).
 * Views under 30 reports are not tested (normal approximation). With `reportAlpha`
 * (the collector's per-report check, unary-report-check.ts, dropped the reports
 * whose count is implausible) mu and sigma^2 are those of the kept counts. O(sum of unary cells).
 */
export function unaryOnesFlags(
  plan: CalmPlan,
  support: readonly ArrayLike<number>[],
  reportsPerView: readonly number[],
  alpha = UNARY_ONES_FALSE_POSITIVE_RATE,
  reportAlpha?: number,
): UnaryOnesFlag[] {
  const kept = reportAlpha === undefined ? undefined : planCountRules(plan, reportAlpha);
  const views: number[] = [];
  const z: number[] = [];
  const e = Math.exp(plan.eps);
  plan.views.forEach((view, v) => {
    const n = reportsPerView[v] ?? 0;
    if ((view.oracle !== "oue" && view.oracle !== "sue") || n < 30 || !support[v]) return;
    const [p, q] =
      view.oracle === "oue"
        ? [0.5, 1 / (e + 1)]
        : [Math.sqrt(e) / (Math.sqrt(e) + 1), 1 / (Math.sqrt(e) + 1)];
    const rule = kept?.[v];
    const mu = rule ? rule.meanOnes : p + (view.cells - 1) * q;
    const variance = rule ? rule.varianceOnes : p * (1 - p) + (view.cells - 1) * q * (1 - q);
    let ones = 0;
    for (let x = 0; x < view.cells; x++) ones += support[v]![x]!;
    views.push(v);
    z.push((ones - n * mu) / Math.sqrt(n * variance));
  });
  if (views.length === 0) return [];
  const chiSquare = z.reduce((s, zv) => s + zv * zv, 0);
  const threshold = chiSquareQuantile(views.length, 1 - alpha);
  return chiSquare > threshold ? [{ kind: "unary-ones", views, z, chiSquare, threshold }] : [];
}
