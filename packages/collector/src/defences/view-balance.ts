import { normalQuantile } from "@calm-ldp/calm-core";

/** A round's statistical flag: a view holding more (or fewer) reports than its expected share allows. */
export interface ViewBalanceFlag {
  readonly kind: "view-balance";
  readonly view: number;
  readonly reports: number;
  /** N / m: the view's expected count under uniform group choice. */
  readonly expected: number;
  /** (reports - N/m) / sqrt(N (1/m)(1 - 1/m)). */
  readonly z: number;
  /** The |z| beyond which a view is flagged (Bonferroni over the m views at the round's false-positive rate). */
  readonly threshold: number;
}

/** Default chance that an honest round (every client's view uniform) gets any flag. */
export const VIEW_BALANCE_FALSE_POSITIVE_RATE = 0.01;

/**
 * Test each view's report count against its share: under honest clients the
 * count of view v is Binomial(N, 1/m) (CALM's uniform group choice, or the
 * token's uniform view in protected mode), so z_v = (C_v - N/m) / sqrt(N/m (1 - 1/m))
 * is about standard normal; flag views with |z_v| > Phi^-1(1 - alpha / (2m))
 * (two-sided, Bonferroni): an honest round is flagged with probability <= alpha.
 * A grinding attacker putting F fake reports into one view is flagged once
 * F exceeds about threshold sqrt(N/m) (e.g. 3.2 sqrt(N/m) for m = 6 at alpha 0.01).
 * Normal approximation: needs N/m >= ~30; smaller rounds are not tested. O(m).
 */
export function viewBalanceFlags(
  perView: readonly number[],
  alpha = VIEW_BALANCE_FALSE_POSITIVE_RATE,
): ViewBalanceFlag[] {
  const m = perView.length;
  const total = perView.reduce((a, b) => a + b, 0);
  if (m < 2 || total / m < 30) return [];
  const expected = total / m;
  const sd = Math.sqrt(expected * (1 - 1 / m));
  const threshold = normalQuantile(1 - alpha / (2 * m));
  const flags: ViewBalanceFlag[] = [];
  perView.forEach((reports, view) => {
    const z = (reports - expected) / sd;
    if (Math.abs(z) > threshold) flags.push({ kind: "view-balance", view, reports, expected, z, threshold });
  });
  return flags;
}
