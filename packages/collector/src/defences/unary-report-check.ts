import type { CalmPlan } from "@calm-ldp/calm-core";
import type { StoredRound, SupportCounts } from "../api.js";
import { roundEstimateOptions } from "../campaigns/round-id.js";
import { InvalidParameterError } from "../errors.js";

/** Default chance that an honest unary report is dropped by {@link unaryReportCheck}. */
export const UNARY_REPORT_FALSE_POSITIVE_RATE = 0.01;

/** The probabilities a unary oracle sets the true bit (p) and any other bit (q) with. */
export function unaryPq(oracle: string, eps: number): { p: number; q: number } {
  if (oracle === "oue") return { p: 0.5, q: 1 / (Math.exp(eps) + 1) };
  if (oracle === "sue")
    return { p: Math.exp(eps / 2) / (Math.exp(eps / 2) + 1), q: 1 / (Math.exp(eps / 2) + 1) };
  throw new InvalidParameterError(`no unary parameters for oracle ${oracle}`);
}

/** pmf of Binomial(trials, q) for k in [0, trials], through log-gamma-free recurrence in log space. O(trials). */
function binomialPmf(trials: number, q: number): Float64Array {
  const out = new Float64Array(trials + 1);
  if (trials === 0) return out.fill(1);
  let log = trials * Math.log1p(-q);
  const ratio = Math.log(q) - Math.log1p(-q);
  for (let k = 0; k <= trials; k++) {
    out[k] = Math.exp(log);
    log += Math.log(trials - k) - Math.log(k + 1) + ratio;
  }
  return out;
}

/** What the per-report count test of one unary view keeps, and the kept reports' law. */
export interface UnaryCountRule {
  /** Reports with at most `low` ones are dropped (-1: none). */
  readonly low: number;
  /** Reports with at least `high` ones are dropped (cells + 1: none). */
  readonly high: number;
  /** P(an honest report is dropped) = P(K <= low) + P(K >= high) <= alpha, exactly. */
  readonly honestDropRate: number;
  /** P(true bit set | kept) and P(a given other bit set | kept): the kept reports' oracle. */
  readonly p: number;
  readonly q: number;
  /** Mean and variance of a kept honest report's number of ones (for the round-level unary-ones test). */
  readonly meanOnes: number;
  readonly varianceOnes: number;
}

/**
 * The per-report test of a unary view of c cells (p, q its bit probabilities).
 * An honest report's number of ones is K = B + Binomial(c - 1, q), B ~ Bernoulli(p),
 * whatever its record (every record has exactly one true bit), so
 * P(K = k) = (1 - p) b_{c-1}(k) + p b_{c-1}(k - 1). The rule drops K <= low and
 * K >= high with low the largest count whose lower tail is <= alpha / 2 and high
 * the smallest whose upper tail is <= alpha / 2: an honest report is dropped with
 * probability <= alpha (the exact rate is returned). Dropping on K is not neutral
 * for the estimate (a report with many ones sets the true bit more often), so the
 * rule also returns the kept reports' bit probabilities
 * p' = p P(Bin(c - 1, q) + 1 in S) / P(K in S) and
 * q' = q P(B + Bin(c - 2, q) + 1 in S) / P(K in S) (S the kept counts), with which
 * (C(x)/N - q') / (p' - q') is again unbiased over the kept reports. O(c).
 */
export function unaryCountRule(p: number, q: number, cells: number, alpha: number): UnaryCountRule {
  if (!(alpha > 0 && alpha < 1)) throw new InvalidParameterError(`alpha must be in (0, 1) (got ${alpha})`);
  const rest = binomialPmf(cells - 1, q);
  const law = new Float64Array(cells + 1);
  for (let k = 0; k <= cells; k++) law[k] = (1 - p) * (rest[k] ?? 0) + p * (k > 0 ? rest[k - 1]! : 0);
  // low: largest l with P(K <= l) <= alpha / 2; high: smallest h with P(K >= h) <= alpha / 2.
  let low = -1;
  let lower = law[0]!;
  while (low < cells && lower <= alpha / 2) {
    low++;
    lower += law[low + 1] ?? 0;
  }
  let high = cells + 1;
  let upper = law[cells]!;
  while (high > 0 && upper <= alpha / 2) {
    high--;
    upper += law[high - 1] ?? 0;
  }
  if (low >= high) throw new InvalidParameterError(`unaryCountRule: alpha ${alpha} would drop every count`);
  const others = binomialPmf(Math.max(0, cells - 2), q);
  const kept = (k: number) => k > low && k < high;
  let keptMass = 0;
  let trueSet = 0;
  let otherSet = 0;
  let first = 0;
  let second = 0;
  for (let k = 0; k <= cells; k++) {
    if (!kept(k)) continue;
    keptMass += law[k]!;
    first += k * law[k]!;
    second += k * k * law[k]!;
    if (k >= 1) trueSet += p * rest[k - 1]!;
    // A given other bit set: it, plus B, plus Bin(c - 2, q) among the remaining others, make k.
    if (k >= 1 && cells >= 2)
      otherSet += q * ((1 - p) * (others[k - 1] ?? 0) + p * (k >= 2 ? (others[k - 2] ?? 0) : 0));
  }
  const meanOnes = first / keptMass;
  return {
    low,
    high,
    honestDropRate: Math.max(0, 1 - keptMass),
    p: trueSet / keptMass,
    q: otherSet / keptMass,
    meanOnes,
    varianceOnes: second / keptMass - meanOnes ** 2,
  };
}

const rules = new WeakMap<CalmPlan, Map<number, (UnaryCountRule | undefined)[]>>();

/** Per view of `plan`, its count rule at `alpha` (undefined for non-unary views); cached per plan. O(sum of cells) once. */
export function planCountRules(plan: CalmPlan, alpha: number): readonly (UnaryCountRule | undefined)[] {
  let byAlpha = rules.get(plan);
  if (!byAlpha) rules.set(plan, (byAlpha = new Map()));
  let out = byAlpha.get(alpha);
  if (!out) {
    out = plan.views.map((view) => {
      if (view.oracle !== "oue" && view.oracle !== "sue") return undefined;
      const { p, q } = unaryPq(view.oracle, plan.eps);
      return unaryCountRule(p, q, view.cells, alpha);
    });
    byAlpha.set(alpha, out);
  }
  return out;
}

/**
 * Split accepted reports (`validateBatch`'s: view and supported cells, i.e. the
 * bits set of a unary report) into those an honest client could plausibly have
 * sent and those whose number of ones is in the rejection region of their view's
 * {@link unaryCountRule} at `alpha` (GRR reports are always kept). O(reports).
 */
export function unaryReportCheck<T extends { readonly view: number; readonly cells: readonly number[] }>(
  plan: CalmPlan,
  reports: readonly T[],
  alpha = UNARY_REPORT_FALSE_POSITIVE_RATE,
): { kept: T[]; dropped: T[] } {
  const byView = planCountRules(plan, alpha);
  const kept: T[] = [];
  const dropped: T[] = [];
  for (const item of reports) {
    const rule = byView[item.view];
    const k = item.cells.length;
    (!rule || (k > rule.low && k < rule.high) ? kept : dropped).push(item);
  }
  return { kept, dropped };
}

/**
 * Support counts of the kept reports re-expressed for calm-core's estimator:
 * a unary view's estimate (C(x)/N - q)/(p - q) assumes the oracle's p, q, but the
 * kept reports follow p', q' ({@link unaryCountRule}); so each count becomes
 * round(N (q + (p - q) (C(x)/N - q') / (p' - q'))), clipped to [0, N], whose
 * estimate is the unbiased one of the kept reports (up to 1/(2N) rounding). GRR
 * views unchanged. O(sum of cells).
 */
export function keptSupportCounts(
  plan: CalmPlan,
  support: readonly ArrayLike<number>[],
  reportsPerView: readonly number[],
  alpha = UNARY_REPORT_FALSE_POSITIVE_RATE,
): number[][] {
  const byView = planCountRules(plan, alpha);
  return support.map((counts, v) => {
    const rule = byView[v];
    const n = reportsPerView[v] ?? 0;
    const out = Array.from(counts);
    if (!rule || n === 0) return out;
    const { p, q } = unaryPq(plan.views[v]!.oracle, plan.eps);
    return out.map((c) => {
      const f = (c / n - rule.q) / (rule.p - rule.q);
      return Math.min(n, Math.max(0, Math.round(n * (q + (p - q) * f))));
    });
  });
}

/**
 * The per-report unary check's rate for `round`: the collector's `alpha`, but none
 * for a campaign round with an instantaneous layer (its honest reports follow the
 * two layers' law, not the plan's p and q the check and its re-basing assume). O(1).
 */
export function unaryCheckAlpha(round: StoredRound, alpha: number | undefined): number | undefined {
  return roundEstimateOptions(round).instantEps === undefined ? alpha : undefined;
}

/**
 * The support counts `round`'s marginal is estimated from: as stored when the
 * per-report check did not run on it ({@link unaryCheckAlpha} undefined), else
 * re-based to the kept reports' law ({@link keptSupportCounts}). Every estimate the
 * collector serves (round, campaign series) goes through here, so none reads the
 * kept reports as if unfiltered. O(sum of cells).
 */
export function estimationCounts(
  round: StoredRound,
  stored: SupportCounts,
  collectorAlpha: number | undefined,
): SupportCounts {
  const alpha = unaryCheckAlpha(round, collectorAlpha);
  if (alpha === undefined) return stored;
  return {
    reportsPerView: stored.reportsPerView,
    support: keptSupportCounts(round.plan, stored.support, stored.reportsPerView, alpha).map((c) =>
      Float64Array.from(c),
    ),
  };
}
