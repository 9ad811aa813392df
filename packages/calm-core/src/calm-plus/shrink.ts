/** calm-plus's shrinkage: every order's pooled coefficients toward their targets (empirical Bayes). */
import type { CalmPlusOrderShrinkage, CalmPlusShrinkage } from "./api.js";
import { maxentTargets } from "./maxent-targets.js";
import { mixtureFactors, momentFactors } from "./mixture-factors.js";
import type { ShrinkOptions } from "./options.js";
import type { Pooled } from "./pooled.js";
import { blendHybrid, shapeOneWays } from "./shape-step.js";

/** Standard errors the pairs' centre must stand from 0 to be kept (`pairCenter` "test"). */
const PAIR_CENTER_Z = 2;

/**
 * Empirical-Bayes shrinkage of the pooled coefficients (sets every entry's
 * value), order by order from 1 up. Order 1 shrinks toward 0 (the uniform
 * marginal); order r >= 2 toward the independence target t_{T,j} =
 * prod_{a in T} beta_{a,j_a} (the coefficient of the product of the already
 * shrunk one-way marginals); every order's residuals beta - t are first centred
 * on their precision-weighted mean mu_r, which is kept (mu_2 only at two standard
 * errors from 0 with `pairCenter` "test", the default), and the centred residual
 * is shrunk. Groups: per
 * order ("order", "mixture"), per attribute set T with >= 4 coefficients
 * ("block", else per order). Coefficients no view measured take the target.
 * With `interactionTarget` "maxent" (the default), the target of order r >= 3 is instead the
 * coefficient of the max-entropy extension of T's (r-1)-way marginals (see
 * {@link maxentTargets}), the centre then the mean residual about it.
 * With `oneWayPrior` "shape", the one-way marginals of attributes with 3..4
 * categories (groups of >= 4 of one cardinality) are instead the posterior means
 * under the permutation-invariant shape prior (`shapePosterior`), and the order's
 * centre and mixture are fitted to the other one-way coefficients only; with
 * "hybrid" (default) they are the posterior means under s * (the order's mixture)
 * + (1 - s) * (the fitted shapes), weighted by their marginal densities. With
 * either, order 1's centre and mixture are fitted per number of categories.
 * O(number of coefficients) ("mixture": times the EM cost of {@link mixtureFactors};
 * "maxent": plus one small IPF per attribute set of order >= 3; "shape": plus
 * `shapePosterior`'s O(attributes x atoms x iterations)).
 */
export function shrinkPooled(
  pooled: Map<string, Pooled>,
  shrinkage: CalmPlusShrinkage,
  options: ShrinkOptions,
): CalmPlusOrderShrinkage[] {
  const byOrder = new Map<number, Pooled[]>();
  for (const entry of pooled.values()) {
    const group = byOrder.get(entry.order) ?? [];
    group.push(entry);
    byOrder.set(entry.order, group);
  }
  const report: CalmPlusOrderShrinkage[] = [];
  for (const order of [...byOrder.keys()].sort((a, b) => a - b)) {
    const shrunk = shrinkOrder(order, byOrder.get(order)!, pooled, shrinkage, options);
    if (shrunk) report.push(shrunk);
  }
  return report;
}

/**
 * One order's step of `shrinkPooled` (the lower orders already shrunk): targets,
 * the shape prior's one-way entries, the centres, the factors, then the values
 * beta = t + mu + f (beta_pooled - t - mu) and the order's report (undefined when
 * no coefficient of the order was measured). O(entries of the order) plus the
 * targets', shapes' and factors' costs.
 */
function shrinkOrder(
  order: number,
  all: readonly Pooled[],
  pooled: Map<string, Pooled>,
  shrinkage: CalmPlusShrinkage,
  { interactionTarget, oneWayPrior, cardinalities, pairCenter }: ShrinkOptions,
): CalmPlusOrderShrinkage | undefined {
  setTargets(order, all, pooled, interactionTarget, cardinalities);
  let measured = all.filter((entry) => entry.precision > 0);
  if (measured.length === 0) return undefined;
  // One-way marginals under the shape prior: set here, left out of the order's mixture below.
  const hybrid = order === 1 && oneWayPrior === "hybrid" && shrinkage === "mixture";
  const shapes =
    order === 1 && (oneWayPrior === "shape" || hybrid) && shrinkage !== "none"
      ? shapeOneWays(measured, cardinalities, hybrid ? 0 : undefined)
      : [];
  // "shape": these one-way entries are set by the shape prior and left out of the order's mixture.
  const shaped = new Map<Pooled, { value: number; factor: number }>();
  if (!hybrid)
    for (const shape of shapes)
      shape.entries.forEach((entry, j) => {
        shaped.set(entry, { value: shape.values[j]!, factor: shape.factor });
      });
  measured = measured.filter((entry) => !shaped.has(entry));
  const residual = Float64Array.from(measured, (e) => e.weighted / e.precision - e.value);
  const tau2 = Float64Array.from(measured, (e) => 1 / e.precision);
  // Groups sharing one centre and one mixture: the whole order; with the "shape" and "hybrid"
  // one-way priors, the one-way contrasts per number of categories (a binary attribute's one
  // contrast and a ternary attribute's two are different quantities).
  const cardinalityOf = (entry: Pooled) => cardinalities[Number(entry.block.slice(0, -1))]!;
  const perCardinality = order === 1 && oneWayPrior !== "contrasts";
  const groupOf = (entry: Pooled) => (perCardinality ? cardinalityOf(entry) : 0);
  const groups = new Map<number, number[]>();
  measured.forEach((entry, i) => {
    const key = groupOf(entry);
    const members = groups.get(key) ?? [];
    members.push(i);
    groups.set(key, members);
  });
  let center = 0;
  if (shrinkage !== "none" && measured.length > 0) {
    const centers = centerResiduals(order, measured, residual, tau2, groups, pairCenter);
    let num = 0;
    let den = 0;
    measured.forEach((e) => {
      num += centers.get(groupOf(e))! * e.precision;
      den += e.precision;
    });
    center = num / den;
    for (const entry of all) if (!shaped.has(entry)) entry.value += centers.get(groupOf(entry)) ?? center;
  }
  const logDensity = new Float64Array(measured.length);
  const factors = shrinkFactors(shrinkage, measured, residual, tau2, groups, logDensity);
  let excess = 0;
  let noise = 0;
  let factorSum = 0;
  measured.forEach((entry, i) => {
    entry.value += factors[i]! * residual[i]!;
    entry.factor = factors[i]!;
    excess += residual[i]! * residual[i]! - tau2[i]!;
    noise += tau2[i]!;
    factorSum += factors[i]!;
  });
  if (hybrid) blendHybrid(shapes, measured, logDensity);
  for (const [entry, { value, factor }] of shaped) {
    entry.value = value;
    entry.factor = factor;
    const raw = entry.weighted / entry.precision;
    excess += raw * raw - 1 / entry.precision;
    noise += 1 / entry.precision;
    factorSum += entry.factor;
  }
  const counted = measured.length + shaped.size;
  return {
    order,
    center,
    coefficients: counted,
    signalVariance: Math.max(0, excess / counted),
    noiseVariance: noise / counted,
    meanFactor: factorSum / counted,
  };
}

/**
 * Every entry's target before its residual is shrunk: 0 for order 1 (the uniform
 * marginal), the independence target t_{T,j} = prod_{a in T} beta_{a,j_a} for
 * order r >= 2, or with `interactionTarget` "maxent" for r >= 3 the coefficient
 * of the max-entropy extension of T's (r-1)-way marginals (`maxentTargets`, per
 * attribute set T; where it gives none the independence target stays).
 * O(entries x r) plus one small IPF per attribute set with "maxent".
 */
function setTargets(
  order: number,
  all: readonly Pooled[],
  pooled: Map<string, Pooled>,
  interactionTarget: ShrinkOptions["interactionTarget"],
  cardinalities: readonly number[],
): void {
  for (const entry of all) {
    let target = 0;
    if (order >= 2) {
      target = 1;
      for (const part of entry.parts) target *= part.value;
    }
    entry.value = target;
  }
  if (interactionTarget !== "maxent" || order < 3) return;
  const blocks = new Map<string, Pooled[]>();
  for (const entry of all) {
    const members = blocks.get(entry.block) ?? [];
    members.push(entry);
    blocks.set(entry.block, members);
  }
  for (const [block, members] of blocks) {
    const targets = maxentTargets(block, pooled, cardinalities);
    if (!targets) continue;
    for (const entry of members) {
      const value = targets.get(entry.key);
      if (value !== undefined) entry.value = value;
    }
  }
}

/**
 * The prior's centre of every group: the precision-weighted mean residual mu =
 * sum p_i r_i / sum p_i (e.g. the typical positive correlation of a data set's
 * pairs), kept like Efron-Morris' grand mean; with `pairCenter` "test" the pairs'
 * mu only where mu^2 >= z^2 Var(mu), Var(mu) = sum p_i^2 (A + tau_i^2) / (sum p_i)^2
 * (z = PAIR_CENTER_Z, A the moment signal variance). Subtracts it from the
 * residuals in place and returns it per group key. O(measured).
 */
function centerResiduals(
  order: number,
  measured: readonly Pooled[],
  residual: Float64Array,
  tau2: Float64Array,
  groups: ReadonlyMap<number, readonly number[]>,
  pairCenter: ShrinkOptions["pairCenter"],
): Map<number, number> {
  const centers = new Map<number, number>();
  for (const [key, members] of groups) {
    let num = 0;
    let den = 0;
    for (const i of members) {
      num += residual[i]! * measured[i]!.precision;
      den += measured[i]!.precision;
    }
    let mu = num / den;
    if (order === 2 && pairCenter === "test" && mu !== 0) {
      // Kept only where it stands out of its own noise (two standard errors).
      let excess = 0;
      for (const i of members) excess += (residual[i]! - mu) ** 2 - tau2[i]!;
      const signal = Math.max(0, excess / members.length);
      let spread = 0;
      for (const i of members) spread += measured[i]!.precision ** 2 * (signal + tau2[i]!);
      if (mu * mu < (PAIR_CENTER_Z * PAIR_CENTER_Z * spread) / (den * den)) mu = 0;
    }
    centers.set(key, mu);
    for (const i of members) residual[i]! -= mu;
  }
  return centers;
}

/**
 * Every centred residual's shrinkage factor: 1 ("none"); the scale-mixture
 * posterior factors per group ("mixture", `mixtureFactors`, which also writes
 * each residual's log marginal density into `logDensity`); the moment factors of
 * the whole order ("order", `momentFactors`), per attribute set T with at least
 * 4 coefficients ("block"). O(N) or, for "mixture", EM's O(N G x iterations).
 */
function shrinkFactors(
  shrinkage: CalmPlusShrinkage,
  measured: readonly Pooled[],
  residual: Float64Array,
  tau2: Float64Array,
  groups: ReadonlyMap<number, readonly number[]>,
  logDensity: Float64Array,
): Float64Array {
  if (shrinkage === "none") return new Float64Array(measured.length).fill(1);
  if (shrinkage === "mixture") {
    const factors = new Float64Array(measured.length);
    for (const members of groups.values()) {
      const local = new Float64Array(members.length);
      const part = mixtureFactors(
        Float64Array.from(members, (i) => residual[i]!),
        Float64Array.from(members, (i) => tau2[i]!),
        local,
      );
      members.forEach((i, m) => {
        factors[i] = part[m]!;
        logDensity[i] = local[m]!;
      });
    }
    return factors;
  }
  const factors = momentFactors(residual, tau2);
  if (shrinkage === "block") {
    const blocks = new Map<string, number[]>();
    measured.forEach((e, i) => {
      const members = blocks.get(e.block) ?? [];
      members.push(i);
      blocks.set(e.block, members);
    });
    for (const members of blocks.values()) {
      if (members.length < 4) continue;
      const local = momentFactors(
        Float64Array.from(members, (i) => residual[i]!),
        Float64Array.from(members, (i) => tau2[i]!),
      );
      members.forEach((i, m) => {
        factors[i] = local[m]!;
      });
    }
  }
  return factors;
}
