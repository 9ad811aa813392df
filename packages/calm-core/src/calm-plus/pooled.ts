/**
 * calm-plus's coefficient map: every view's coefficient in the orthonormal
 * interaction basis (tensor Helmert contrasts) names one population quantity
 * beta_{T,j} (support T, contrast digits j), shared by every view holding T;
 * `coefficientKeys` finds (or makes) its pooled entry, `viewCoefficients` writes
 * the views' unbiased estimates in the basis, `rebuildViews` the views back from
 * the pooled values.
 */
import { createTable, type MarginalTable, uniformTable } from "@calm-ldp/marginal-algebra";
import type { CalmAggregator } from "../aggregator.js";
import type { CalmPlan } from "../api.js";
import { interactionTransform } from "../interaction-basis.js";

/** Pooled estimate of one interaction coefficient (attribute set T, contrast digits j). */
export interface Pooled {
  order: number;
  block: string;
  /** Its key in the pooled map: "a:j," per support attribute a (ascending in the view) with digit j. */
  key: string;
  /** Sum over views of w * beta (w = 1 / variance). */
  weighted: number;
  /** Sum of w: the pooled precision. */
  precision: number;
  /** Final (shrunk) value. */
  value: number;
  /** Shrinkage factor of the residual (1 = kept, 0 = at the target); 1 without shrinkage. */
  factor: number;
  /** For order >= 2: the one-way entries (a, j_a) of its support, whose product is its independence target. */
  parts: Pooled[];
}

/** Every view's pooled entries and scales (see `coefficientKeys`). */
export interface CoefficientMap {
  /** All pooled entries by key (see `Pooled.key`). */
  readonly pooled: Map<string, Pooled>;
  /** Per view, coefficient u's pooled entry (u = 0, the constant, has none). */
  readonly viewKeys: readonly (readonly (Pooled | undefined)[])[];
  /** Per view, coefficient u's scale sqrt(D_v / D_T) to the population's. */
  readonly viewScales: readonly Float64Array[];
}

/** The views' unbiased estimates: tables, coefficients and which views had no report. */
export interface ViewEstimates {
  /** Every view's oracle estimate (uniform for a view with no report). */
  readonly rawViews: MarginalTable[];
  /** Every view's estimate in the interaction basis; undefined for a view with no report. */
  readonly coefficients: readonly (Float64Array | undefined)[];
  /** The views with no report. */
  readonly emptyViews: number[];
}

/**
 * Every view's keys and scales in one pooled map (see `coefficientKeys`).
 * O(sum_v D_v l_v).
 */
export function coefficientMap(
  plan: CalmPlan,
  viewCardinalities: readonly (readonly number[])[],
): CoefficientMap {
  const pooled = new Map<string, Pooled>();
  const viewKeys: (readonly (Pooled | undefined)[])[] = [];
  const viewScales: Float64Array[] = [];
  plan.views.forEach((view, v) => {
    const { keys, scales } = coefficientKeys(view.attributes, viewCardinalities[v]!, pooled);
    viewKeys.push(keys);
    viewScales.push(scales);
  });
  return { pooled, viewKeys, viewScales };
}

/**
 * Every view's unbiased oracle estimate x_v (as CALM's) and its coefficients
 * gamma_{v,u} in the orthonormal interaction basis (`interactionTransform`).
 * O(sum_v D_v sum_{i in v} c_i).
 */
export function viewEstimates(
  plan: CalmPlan,
  aggregator: CalmAggregator,
  viewCardinalities: readonly (readonly number[])[],
): ViewEstimates {
  const emptyViews: number[] = [];
  const coefficients: (Float64Array | undefined)[] = [];
  const rawViews = plan.views.map((view, v) => {
    const cardinalities = viewCardinalities[v]!;
    const counts = aggregator.views[v]!;
    if (counts.reports === 0) {
      emptyViews.push(v);
      coefficients.push(undefined);
      return uniformTable(view.attributes, cardinalities);
    }
    const raw = createTable(view.attributes, cardinalities, {
      cells: counts.estimate(),
      unit: "fraction",
    });
    const gamma = Float64Array.from(raw.cells);
    interactionTransform(gamma, cardinalities, false);
    coefficients.push(gamma);
    return raw;
  });
  return { rawViews, coefficients, emptyViews };
}

/** Every view's table from the pooled values (coefficient u = value / scale). O(total view cells). */
export function rebuildViews(
  plan: CalmPlan,
  viewCardinalities: readonly (readonly number[])[],
  viewKeys: readonly (readonly (Pooled | undefined)[])[],
  viewScales: readonly Float64Array[],
): MarginalTable[] {
  return plan.views.map((view, v) => {
    const keys = viewKeys[v]!;
    const scales = viewScales[v]!;
    const coefficients = new Float64Array(view.cells);
    coefficients[0] = 1 / Math.sqrt(view.cells);
    for (let u = 1; u < coefficients.length; u++) coefficients[u] = keys[u]!.value / scales[u]!;
    interactionTransform(coefficients, viewCardinalities[v]!, true);
    return createTable(view.attributes, viewCardinalities[v]!, { cells: coefficients, unit: "fraction" });
  });
}

/**
 * For every coefficient u of a view, its pooled entry (created on first sight)
 * and the scale sqrt(D_v / D_T) from the view's coefficient to the population's.
 * O(D_v l).
 */
export function coefficientKeys(
  attributes: readonly number[],
  cardinalities: readonly number[],
  pooled: Map<string, Pooled>,
): { keys: (Pooled | undefined)[]; scales: Float64Array } {
  let size = 1;
  for (const c of cardinalities) size *= c;
  const keys: (Pooled | undefined)[] = new Array(size);
  const scales = new Float64Array(size);
  const digits = new Array<number>(attributes.length);
  for (let u = 1; u < size; u++) {
    let rest = u;
    for (let i = attributes.length - 1; i >= 0; i--) {
      const c = cardinalities[i]!;
      digits[i] = rest % c;
      rest = (rest - digits[i]!) / c;
    }
    let block = "";
    let key = "";
    let order = 0;
    let supportCells = 1;
    for (let i = 0; i < attributes.length; i++) {
      if (digits[i] === 0) continue;
      order++;
      supportCells *= cardinalities[i]!;
      block += `${attributes[i]},`;
      key += `${attributes[i]}:${digits[i]},`;
    }
    let entry = pooled.get(key);
    if (!entry) {
      const parts: Pooled[] = [];
      if (order >= 2)
        for (let i = 0; i < attributes.length; i++) {
          if (digits[i] === 0) continue;
          const partKey = `${attributes[i]}:${digits[i]},`;
          let part = pooled.get(partKey);
          if (!part) {
            part = {
              order: 1,
              block: `${attributes[i]},`,
              key: partKey,
              weighted: 0,
              precision: 0,
              value: 0,
              factor: 1,
              parts: [],
            };
            pooled.set(partKey, part);
          }
          parts.push(part);
        }
      entry = { order, block, key, weighted: 0, precision: 0, value: 0, factor: 1, parts };
      pooled.set(key, entry);
    }
    keys[u] = entry;
    scales[u] = Math.sqrt(size / supportCells);
  }
  return { keys, scales };
}
