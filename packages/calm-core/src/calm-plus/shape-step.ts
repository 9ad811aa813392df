/** calm-plus's shape step: one-way marginals under the permutation-invariant shape prior. */
import { SHAPE_MAX_CARDINALITY, SHAPE_MIN_ATTRIBUTES, shapePosterior, signalShare } from "../shape-prior.js";
import type { Pooled } from "./pooled.js";

/** One attribute's one-way entries under the shape prior. */
export interface ShapedAttribute {
  /** Its one-way entries, by contrast digit 1..c-1. */
  entries: Pooled[];
  /** Their posterior means and the mean shrinkage factor. */
  values: Float64Array;
  factor: number;
  /** log marginal density of its pooled coefficients under the fitted shape prior. */
  logDensity: number;
  /** The group's signal fraction (see `signalShare`). */
  share: number;
}

/**
 * The one-way entries set by the shape prior (see `shapePosterior`): the
 * attributes with 3..SHAPE_MAX_CARDINALITY categories whose every contrast was
 * measured, grouped by cardinality; a group of at least SHAPE_MIN_ATTRIBUTES
 * attributes gets each attribute's posterior mean under the prior fitted to the
 * group (value and factor set). Returns the entries it set. O(attributes x atoms x EM iterations).
 */
export function shapeOneWays(
  measured: readonly Pooled[],
  cardinalities: readonly number[],
  flatShare?: number,
): ShapedAttribute[] {
  const byAttribute = new Map<number, Pooled[]>();
  for (const entry of measured) {
    const attribute = Number(entry.block.slice(0, -1));
    const members = byAttribute.get(attribute) ?? [];
    members.push(entry);
    byAttribute.set(attribute, members);
  }
  const groups = new Map<number, { attribute: number; entries: Pooled[] }[]>();
  for (const [attribute, entries] of byAttribute) {
    const c = cardinalities[attribute]!;
    if (c < 3 || c > SHAPE_MAX_CARDINALITY || entries.length !== c - 1) continue;
    // Contrast digit j (1..c-1) from the key "a:j,".
    entries.sort(
      (x, y) => Number(x.key.split(":")[1]!.slice(0, -1)) - Number(y.key.split(":")[1]!.slice(0, -1)),
    );
    const group = groups.get(c) ?? [];
    group.push({ attribute, entries });
    groups.set(c, group);
  }
  const shaped: ShapedAttribute[] = [];
  for (const [c, group] of groups) {
    if (group.length < SHAPE_MIN_ATTRIBUTES) continue;
    const inputs = group.map(({ entries }) => ({
      coefficients: Float64Array.from(entries, (e) => e.weighted / e.precision),
      variances: Float64Array.from(entries, (e) => 1 / e.precision),
    }));
    const share = signalShare(inputs);
    const outputs = shapePosterior(inputs, c, flatShare ?? share);
    group.forEach(({ entries }, i) => {
      const output = outputs[i]!;
      shaped.push({
        entries,
        values: output.coefficients,
        factor: output.factor,
        logDensity: output.logDensity,
        share,
      });
    });
  }
  return shaped;
}

/**
 * "hybrid": each shaped attribute's posterior under the prior s * contrasts +
 * (1 - s) * fitted shapes: the two posterior means (the entries' values and
 * factors as the order's mixture left them, and the shape's) weighted by their
 * marginal densities, w = sigmoid(log s + sum log density_contrasts - log(1 - s)
 * - log density_shape). `logDensity[i]` is measured[i]'s log marginal density
 * under the mixture. O(shaped entries).
 */
export function blendHybrid(
  shapes: readonly ShapedAttribute[],
  measured: readonly Pooled[],
  logDensity: Float64Array,
): void {
  const index = new Map<Pooled, number>();
  measured.forEach((entry, i) => {
    index.set(entry, i);
  });
  for (const shape of shapes) {
    let logContrasts = 0;
    for (const entry of shape.entries) logContrasts += logDensity[index.get(entry)!]!;
    const logit = Math.log(shape.share) + logContrasts - Math.log(1 - shape.share) - shape.logDensity;
    const weight = logit >= 0 ? 1 / (1 + Math.exp(-logit)) : Math.exp(logit) / (1 + Math.exp(logit));
    shape.entries.forEach((entry, j) => {
      entry.value = weight * entry.value + (1 - weight) * shape.values[j]!;
      entry.factor = weight * entry.factor + (1 - weight) * shape.factor;
    });
  }
}
