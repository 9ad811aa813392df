import { betaQuantile } from "./beta.js";
import { fail } from "./errors.js";

function checkCounts(where: string, successes: number, trials: number, alpha: number): void {
  if (!Number.isInteger(trials) || trials < 1) fail(where, "trials must be an integer >= 1", trials);
  if (!Number.isInteger(successes) || successes < 0 || successes > trials) {
    fail(where, `successes must be an integer in [0, trials = ${trials}]`, successes);
  }
  if (!(alpha > 0 && alpha < 1)) fail(where, "alpha must be in (0, 1)", alpha);
}

/**
 * One-sided Clopper-Pearson lower bound on a binomial proportion: the p with
 * Pr[Binomial(trials, p) >= successes] = alpha, i.e. the alpha quantile of
 * Beta(successes, trials - successes + 1); 0 when successes = 0. Holds with
 * probability >= 1 - alpha (exact, conservative). O(60 incomplete-beta evaluations).
 */
export function clopperPearsonLower(successes: number, trials: number, alpha: number): number {
  checkCounts("clopperPearsonLower", successes, trials, alpha);
  if (successes === 0) return 0;
  if (successes === trials) return alpha ** (1 / trials);
  return betaQuantile(alpha, successes, trials - successes + 1);
}

/**
 * One-sided Clopper-Pearson upper bound: the 1 - alpha quantile of
 * Beta(successes + 1, trials - successes); 1 when successes = trials.
 * Holds with probability >= 1 - alpha. O(60 incomplete-beta evaluations).
 */
export function clopperPearsonUpper(successes: number, trials: number, alpha: number): number {
  checkCounts("clopperPearsonUpper", successes, trials, alpha);
  if (successes === trials) return 1;
  if (successes === 0) return 1 - alpha ** (1 / trials);
  return betaQuantile(1 - alpha, successes + 1, trials - successes);
}

/** Two-sided Clopper-Pearson interval at `confidence` (each tail (1 - confidence) / 2). */
export function clopperPearson(
  successes: number,
  trials: number,
  confidence = 0.95,
): { lower: number; upper: number } {
  if (!(confidence > 0 && confidence < 1)) fail("clopperPearson", "confidence must be in (0, 1)", confidence);
  const alpha = (1 - confidence) / 2;
  return {
    lower: clopperPearsonLower(successes, trials, alpha),
    upper: clopperPearsonUpper(successes, trials, alpha),
  };
}
