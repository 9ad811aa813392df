import {
  createTable,
  type MarginalTable,
  type PostProcessResult,
  postProcessViews,
  uniformTable,
} from "@calm-ldp/marginal-algebra";
import { maxEntropy } from "@calm-ldp/reconstruction";
import type { CalmAggregator } from "./aggregator.js";
import type { CalmPlan } from "./api.js";
import { CannotRunError, InvalidParameterError, invalid } from "./errors.js";
import type { CalmAnswer, CalmEstimateOptions, CalmSynopsis } from "./estimate.js";
import { interactionTransform } from "./interaction-basis.js";
import { planRuntime } from "./runtime.js";

/** How {@link estimateCalmPlus} shrinks the pooled interaction coefficients. */
export type CalmPlusShrinkage = "order" | "block" | "none";

/** Options of {@link estimateCalmPlus}. */
export interface CalmPlusEstimateOptions extends CalmEstimateOptions {
  /**
   * Empirical-Bayes shrinkage toward the uniform table (default "order"): one prior
   * variance per interaction order |T| ("order"), one per attribute set T ("block",
   * James-Stein within T's (c-1)^|T| coefficients, pooled by order when T has
   * fewer than 4), or none (only the variance-weighted pooling across views).
   */
  shrinkage?: CalmPlusShrinkage;
  /**
   * Largest query table (cells) an answer may allocate; a larger query is refused
   * with `CannotRunError` naming the size it would need. Default 2^24.
   */
  maxQueryCells?: number;
}

/** The shrinkage applied to the coefficients of one interaction order. */
export interface CalmPlusOrderShrinkage {
  /** Interaction order |T| (number of attributes of the coefficients). */
  order: number;
  /** Number of pooled coefficients of that order. */
  coefficients: number;
  /** Estimated prior (signal) variance A_r = max(0, mean(beta^2 - tau^2)). */
  signalVariance: number;
  /** Mean noise variance tau^2 of the pooled coefficients. */
  noiseVariance: number;
  /** Mean factor A / (A + tau^2) the coefficients were multiplied by (1 = kept, 0 = uniform). */
  meanFactor: number;
}

/** What `calm-plus` releases: CALM's synopsis plus what the joint estimation did. */
export interface CalmPlusSynopsis extends CalmSynopsis {
  /** The views rebuilt from the pooled, shrunk coefficients (consistent; possibly with negative cells). */
  readonly fittedViews: readonly MarginalTable[];
  /** Per interaction order, the empirical-Bayes shrinkage applied. */
  readonly shrinkage: readonly CalmPlusOrderShrinkage[];
  /** False when the non-negativity loop hit its round cap (see `postProcess`); never silently hidden. */
  readonly converged: boolean;
}

/** Pooled estimate of one interaction coefficient (attribute set T, contrast digits j). */
interface Pooled {
  order: number;
  block: string;
  /** Sum over views of w * beta (w = 1 / variance). */
  weighted: number;
  /** Sum of w: the pooled precision. */
  precision: number;
  /** Final (shrunk) value. */
  value: number;
}

/**
 * Per-coefficient noise variance of view v's non-constant interaction
 * coefficients (orthonormal basis, fractions), data-independent (cells taken
 * uniform, 1/D): GRR's multinomial covariance gives `1 / (D N (p-q)^2)`; the
 * unary oracles' independent cells give `(p(1-p)/D + (1-1/D) q(1-q)) / (N (p-q)^2)`;
 * plus the sampling variance of a group of N users about the population, `1/(D N)`.
 */
function coefficientVariance(oracle: string, cells: number, reports: number, p: number, q: number): number {
  const gap = (p - q) * (p - q);
  const noise =
    oracle === "grr"
      ? 1 / (cells * reports * gap)
      : ((p * (1 - p)) / cells + (1 - 1 / cells) * q * (1 - q)) / (reports * gap);
  return noise + 1 / (cells * reports);
}

/**
 * `calm-plus`: the same plan and reports as CALM, a joint estimator that uses
 * every report better at small eps. Steps (ALGORITHMS.md-style formulas):
 * 1. every view's unbiased oracle estimate x_v (as CALM) is written in the
 *    orthonormal interaction basis (tensor Helmert contrasts): coefficient
 *    gamma_{v,u}; its support T (attributes with a non-constant contrast) and
 *    digits j name one population quantity beta_{T,j} = sqrt(D_v / D_T) gamma_{v,u}
 *    shared by every view containing T, with noise variance (D_v / D_T) s_v^2
 *    (s_v^2 from the view's oracle, its reports and D_v; see `coefficientVariance`);
 * 2. pooling: beta_{T,j} = sum_v w_v beta_v / sum_v w_v with w_v = 1 / variance,
 *    the minimum-variance unbiased combination (tau^2 = 1 / sum_v w_v): every
 *    view's information on T is used, weighted by what it is worth;
 * 3. shrinkage toward Uni (empirical Bayes, Efron-Morris): coefficients of order
 *    r share a prior N(0, A_r), A_r = max(0, mean(beta^2 - tau^2)) estimated from
 *    the data, and each becomes beta A_r / (A_r + tau^2): kept where the views
 *    carry signal, set to the uniform table's 0 where they carry only noise;
 * 4. the views are rebuilt from the shrunk coefficients (consistent by
 *    construction, totals 1), made non-negative by CALM's post-processing loop,
 *    and queries are answered as CALM does (projection or maximum entropy).
 * Cost: O(sum_v D_v sum_{i in v} c_i) for the transforms plus one hash-map entry
 * per coefficient, i.e. linear in the total view cells (m views of l attributes:
 * O(m c^l l c)); it grows with d, k only through m and l. Queries cost what CALM's do.
 */
export function estimateCalmPlus(
  plan: CalmPlan,
  aggregator: CalmAggregator,
  options: CalmPlusEstimateOptions = {},
): CalmPlusSynopsis {
  if (aggregator.plan !== plan && aggregator.views.length !== plan.views.length) {
    throw new InvalidParameterError("estimateCalmPlus: the aggregator belongs to a different plan");
  }
  const shrinkage = options.shrinkage ?? "order";
  if (shrinkage !== "order" && shrinkage !== "block" && shrinkage !== "none")
    invalid("estimateCalmPlus", 'shrinkage must be "order", "block" or "none"', shrinkage);
  const maxQueryCells = options.maxQueryCells ?? 2 ** 24;
  if (!(maxQueryCells >= 1) || !Number.isFinite(maxQueryCells))
    invalid("estimateCalmPlus", "maxQueryCells must be a finite number >= 1", maxQueryCells);
  const runtime = planRuntime(plan);
  const cardinalities = plan.schema.attributes.map((a) => a.labels.length);
  const emptyViews: number[] = [];
  const pooled = new Map<string, Pooled>();
  const viewKeys: (readonly (Pooled | undefined)[])[] = [];
  const viewScales: Float64Array[] = [];
  const rawViews = plan.views.map((view, v) => {
    const viewCardinalities = runtime.viewCardinalities[v]!;
    const counts = aggregator.views[v]!;
    const { keys, scales } = coefficientKeys(view.attributes, viewCardinalities, pooled);
    viewKeys.push(keys);
    viewScales.push(scales);
    if (counts.reports === 0) {
      emptyViews.push(v);
      return uniformTable(view.attributes, viewCardinalities);
    }
    const raw = createTable(view.attributes, viewCardinalities, {
      cells: counts.estimate(),
      unit: "fraction",
    });
    const oracle = runtime.oracles[v]!;
    const variance = coefficientVariance(view.oracle, view.cells, counts.reports, oracle.p, oracle.q);
    const coefficients = Float64Array.from(raw.cells);
    interactionTransform(coefficients, viewCardinalities, false);
    for (let u = 1; u < coefficients.length; u++) {
      const entry = keys[u]!;
      const scale = scales[u]!;
      const weight = 1 / (scale * scale * variance);
      entry.weighted += weight * scale * coefficients[u]!;
      entry.precision += weight;
    }
    return raw;
  });
  const orders = shrinkPooled(pooled, shrinkage);
  const fittedViews = plan.views.map((view, v) => {
    const viewCardinalities = runtime.viewCardinalities[v]!;
    const keys = viewKeys[v]!;
    const scales = viewScales[v]!;
    const coefficients = new Float64Array(view.cells);
    coefficients[0] = 1 / Math.sqrt(view.cells);
    for (let u = 1; u < coefficients.length; u++) coefficients[u] = keys[u]!.value / scales[u]!;
    interactionTransform(coefficients, viewCardinalities, true);
    return createTable(view.attributes, viewCardinalities, { cells: coefficients, unit: "fraction" });
  });
  const postProcess: PostProcessResult | undefined =
    options.postProcess === false ? undefined : postProcessViews(fittedViews, options.postProcessOptions);
  const views = postProcess ? postProcess.views : fittedViews;
  const maxEntropyOptions = { ...(options.maxEntropy ?? {}), cardinalities };
  const answer = (attributes: readonly number[]): CalmAnswer => {
    let cells = 1;
    for (const a of attributes) cells *= cardinalities[a] ?? 1;
    if (cells > maxQueryCells)
      throw new CannotRunError(
        `calm-plus: the query over ${attributes.length} attributes needs a table of ${cells} cells, above maxQueryCells = ${maxQueryCells}`,
      );
    const diagnostics = maxEntropy(views, attributes, maxEntropyOptions);
    return {
      table: diagnostics.table,
      method: diagnostics.method === "projection" ? "projection" : "maxent",
      diagnostics,
    };
  };
  return {
    plan,
    views,
    rawViews,
    fittedViews,
    postProcess,
    emptyViews,
    shrinkage: orders,
    converged: postProcess ? postProcess.converged : true,
    answer,
    query: (attributes) => answer(attributes).table,
  };
}

/**
 * For every coefficient u of a view, its pooled entry (created on first sight)
 * and the scale sqrt(D_v / D_T) from the view's coefficient to the population's.
 * O(D_v l).
 */
function coefficientKeys(
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
      entry = { order, block, weighted: 0, precision: 0, value: 0 };
      pooled.set(key, entry);
    }
    keys[u] = entry;
    scales[u] = Math.sqrt(size / supportCells);
  }
  return { keys, scales };
}

/**
 * Empirical-Bayes shrinkage of the pooled coefficients (sets every entry's
 * value): prior N(0, A) per group (order, or attribute set T for "block"),
 * method-of-moments A = max(0, mean(beta^2 - tau^2)), factor A / (A + tau^2).
 * Coefficients no view measured stay 0. O(number of coefficients).
 */
function shrinkPooled(pooled: Map<string, Pooled>, shrinkage: CalmPlusShrinkage): CalmPlusOrderShrinkage[] {
  const byOrder = new Map<number, { count: number; excess: number; noise: number; factor: number }>();
  const byBlock = new Map<string, { count: number; excess: number }>();
  for (const entry of pooled.values()) {
    if (entry.precision === 0) continue;
    const beta = entry.weighted / entry.precision;
    const tau2 = 1 / entry.precision;
    entry.value = beta;
    const order = byOrder.get(entry.order) ?? { count: 0, excess: 0, noise: 0, factor: 0 };
    order.count++;
    order.excess += beta * beta - tau2;
    order.noise += tau2;
    byOrder.set(entry.order, order);
    if (shrinkage === "block") {
      const block = byBlock.get(entry.block) ?? { count: 0, excess: 0 };
      block.count++;
      block.excess += beta * beta - tau2;
      byBlock.set(entry.block, block);
    }
  }
  for (const entry of pooled.values()) {
    if (entry.precision === 0 || shrinkage === "none") continue;
    const order = byOrder.get(entry.order)!;
    let signal = Math.max(0, order.excess / order.count);
    if (shrinkage === "block") {
      const block = byBlock.get(entry.block)!;
      if (block.count >= 4) signal = Math.max(0, block.excess / block.count);
    }
    const tau2 = 1 / entry.precision;
    const factor = signal + tau2 > 0 ? signal / (signal + tau2) : 0;
    entry.value *= factor;
    order.factor += factor;
  }
  return [...byOrder.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([order, s]) => ({
      order,
      coefficients: s.count,
      signalVariance: Math.max(0, s.excess / s.count),
      noiseVariance: s.noise / s.count,
      meanFactor: shrinkage === "none" ? 1 : s.factor / s.count,
    }));
}
