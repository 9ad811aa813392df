/** calm-plus's pair evidence: the one-way marginals fitted to the measured pairs too. */
import type { CalmPlusOrderShrinkage, CalmPlusShrinkage } from "./api.js";
import type { ShrinkOptions } from "./options.js";
import type { Pooled } from "./pooled.js";
import { shrinkPooled } from "./shrink.js";

/** Rounds of {@link pairEvidence} (each with the partners' values from the round before). */
const PAIR_EVIDENCE_ROUNDS = 3;

/**
 * `oneWayEvidence` "pairs": the one-way marginals fitted to the measured pairs'
 * interaction coefficients too. Under the pair prior a pooled pair coefficient is
 * y = beta_{a,i} beta_{b,j} + mu_2 + lambda + e (the independence of the one-way
 * marginals, the order's centre, an interaction lambda of variance A_2, noise e
 * of variance tau^2 = 1 / precision), so given b's current (shrunk) marginal it
 * measures beta_{a,i} with precision beta_{b,j}^2 / (A_2 + tau^2): the pair
 * view's cells weighted by the partner's marginal instead of summed (for a 0.8 /
 * 0.1 / 0.1 partner about as much precision as the view's own one-way
 * coefficients, whose noise counts every cell alike). Per one-way coefficient
 * these terms give a second estimate x_2 = sum w beta_b (y - mu_2) / P_2,
 * P_2 = sum w beta_b^2 (w = 1 / (A_2 + tau^2), A_2 = max(0, mean(r^2 - tau^2))
 * about the current targets) beside the pooled one x_1 (precision P_1). Where
 * pairs are far from independence x_2 is biased, so a between-source variance
 * B = max(0, mean((x_1 - x_2)^2 - 1/P_1 - 1/P_2)) over all one-way coefficients
 * (a moment estimate, as DerSimonian-Laird's) is added to 1/P_2; each one-way
 * entry then pools both (precision P_1 + 1 / (1/P_2 + B)) and the shrinkage is
 * run again: {@link PAIR_EVIDENCE_ROUNDS} rounds, a Jacobi iteration of the
 * bilinear fit. Cost: O(rounds x (pair coefficients + the shrinkage)).
 */
export function pairEvidence(
  pooled: Map<string, Pooled>,
  shrinkage: CalmPlusShrinkage,
  options: ShrinkOptions,
  first: CalmPlusOrderShrinkage[],
): CalmPlusOrderShrinkage[] {
  const ones: Pooled[] = [];
  const pairs: Pooled[] = [];
  for (const entry of pooled.values()) {
    if (entry.order === 1) ones.push(entry);
    else if (entry.order === 2 && entry.precision > 0) pairs.push(entry);
  }
  if (pairs.length === 0) return first;
  const base = new Map(ones.map((e) => [e, { weighted: e.weighted, precision: e.precision }]));
  let report = first;
  for (let round = 0; round < PAIR_EVIDENCE_ROUNDS; round++) {
    const center = report.find((o) => o.order === 2)?.center ?? 0;
    let excess = 0;
    for (const e of pairs) {
      const r = e.weighted / e.precision - e.parts[0]!.value * e.parts[1]!.value - center;
      excess += r * r - 1 / e.precision;
    }
    const signal = Math.max(0, excess / pairs.length);
    // The pairs' estimate of every one-way coefficient: sums of w beta_b (y - mu_2) and w beta_b^2.
    const fromPairs = new Map<Pooled, { weighted: number; precision: number }>();
    for (const e of pairs) {
      const y = e.weighted / e.precision - center;
      const w = 1 / (signal + 1 / e.precision);
      const [p, q] = [e.parts[0]!, e.parts[1]!];
      for (const [own, other] of [
        [p, q],
        [q, p],
      ] as const) {
        const sums = fromPairs.get(own) ?? { weighted: 0, precision: 0 };
        sums.weighted += w * other.value * y;
        sums.precision += w * other.value * other.value;
        fromPairs.set(own, sums);
      }
    }
    // Between-source variance B of the pairs' estimates about the one-way ones.
    let gapExcess = 0;
    let gaps = 0;
    for (const e of ones) {
      const one = base.get(e)!;
      const two = fromPairs.get(e);
      if (!two || !(two.precision > 0) || !(one.precision > 0)) continue;
      const gap = two.weighted / two.precision - one.weighted / one.precision;
      gapExcess += gap * gap - 1 / two.precision - 1 / one.precision;
      gaps++;
    }
    const bias = gaps > 0 ? Math.max(0, gapExcess / gaps) : 0;
    for (const e of ones) {
      const one = base.get(e)!;
      const two = fromPairs.get(e);
      e.weighted = one.weighted;
      e.precision = one.precision;
      if (!two || !(two.precision > 0)) continue;
      const precision = 1 / (1 / two.precision + bias);
      e.weighted += (two.weighted / two.precision) * precision;
      e.precision += precision;
    }
    report = shrinkPooled(pooled, shrinkage, options);
  }
  return report;
}
