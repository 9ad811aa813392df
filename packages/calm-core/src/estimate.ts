import { instantaneousLayer, supportEstimate } from "@calm-ldp/frequency-oracles";
import {
  createTable,
  type MarginalSynopsis,
  type MarginalTable,
  type PostProcessOptions,
  type PostProcessResult,
  postProcessViews,
  uniformTable,
} from "@calm-ldp/marginal-algebra";
import { multinomial, seededRng } from "@calm-ldp/random";
import { type MaxEntropyOptions, type MaxEntropyResult, maxEntropy } from "@calm-ldp/reconstruction";
import { CalmAggregator, checkAggregatorPlan } from "./aggregator.js";
import type { CalmPlan } from "./api.js";
import type { CalmIntervalOptions, CalmIntervalTable } from "./interval.js";
import { intervalQueries } from "./interval-query.js";
import { planRuntime } from "./runtime.js";

/** Options of {@link estimateCalm}. */
export interface CalmEstimateOptions {
  /** Run consistency and non-negativity on the views (default true). */
  postProcess?: boolean;
  /** Options of the alternating consistency / non-negativity loop (method, rounds, ...). */
  postProcessOptions?: PostProcessOptions;
  /** Options of the maximum-entropy fit for queries no view covers. */
  maxEntropy?: Omit<MaxEntropyOptions, "cardinalities">;
  /**
   * The eps of the clients' instantaneous layer, when reports are fresh
   * randomizations of memoized responses (`@calm-ldp/client`'s `createReporter`
   * with `instantEps`). Every view is then estimated with the composed support
   * probabilities (P, Q) of `instantaneousLayer` of @calm-ldp/frequency-oracles:
   * f(x) = (C(x)/N - Q) / (P - Q), unbiased. Absent: the oracles' own estimate.
   *
   * Rounds of one campaign are estimated independently, but their noise is
   * correlated when reports come from memoized responses (with or without the
   * layer): a user whose cell is the same in rounds s and t sends the same
   * permanent response y1 in both, so in view v (N_v users, kept across rounds)
   * Cov(f_s(x), f_t(x)) = sum over those users of (p2 - q2)^2 pi_u (1 - pi_u) / (N_v (P - Q))^2,
   * pi_u = p1 if her cell is x else q1 (without the layer p2 - q2 = 1: the whole
   * variance). Users whose cell changed contribute independent noise. Hence the
   * level error of a stable population does not average out over rounds, while a
   * change f_t - f_s (variance Var f_s + Var f_t - 2 Cov) only carries the noise
   * of the users who changed; see @calm-ldp/client's README for measured trends.
   */
  instantEps?: number;
}

/** The answer to one query, with how it was obtained. */
export interface CalmAnswer {
  table: MarginalTable;
  /** "projection" when a view covers the query, "maxent" otherwise. */
  method: "projection" | "maxent";
  /** Diagnostics of the reconstruction (iterations, residual, consistency). */
  diagnostics: MaxEntropyResult;
}

/** What the server releases: the post-processed views, answering any marginal query. */
export interface CalmSynopsis extends MarginalSynopsis {
  readonly plan: CalmPlan;
  /** The views after consistency and non-negativity (fractions). */
  readonly views: readonly MarginalTable[];
  /** The views as estimated by their oracles (unbiased, may be negative). */
  readonly rawViews: readonly MarginalTable[];
  /** What the post-processing loop did and left (undefined when it was switched off). */
  readonly postProcess: PostProcessResult | undefined;
  /** Views that received no report (estimated as uniform). */
  readonly emptyViews: readonly number[];
  /** The marginal over `attributes` (fractions, over them ascending) with how it was obtained. */
  answer(attributes: readonly number[]): CalmAnswer;
}

/** What {@link estimateCalm} returns: a {@link CalmSynopsis} whose queries can carry intervals. */
export interface CalmIntervalSynopsis extends CalmSynopsis {
  /** The released marginal over `attributes` (fractions, over them ascending). */
  query(attributes: readonly number[]): MarginalTable;
  /**
   * The released marginal with a confidence interval for every cell's true
   * fraction (see {@link CalmIntervalOptions}; `intervalMethod` in the result
   * says which path ran). Analytic (covered queries): O(sum of view cells * l)
   * plus a small dense product per query, no pass over the reports. Bounds
   * (maximum-entropy queries): the analytic path on the query's covered parts
   * plus O(|A| * chains) (see `boundInterval`). Bootstrap (covered queries, when
   * asked): B count-level re-simulations and re-estimations of the whole release,
   * drawn once per synopsis and shared by later bootstrap queries, then one
   * answer per replicate.
   */
  query(attributes: readonly number[], options: CalmIntervalOptions): CalmIntervalTable;
}

function composedEstimate(
  oracle: Parameters<typeof instantaneousLayer>[0],
  counts: CalmAggregator["views"][number],
  instantEps: number,
): Float64Array {
  const layer = instantaneousLayer(oracle, instantEps);
  return supportEstimate(counts.counts(), counts.reports, layer.p, layer.q);
}

/**
 * Server side of CALM after collection (§4.2-4.5): estimate every view with its
 * oracle (unbiased fractions), make the views consistent and non-negative
 * (../../../docs/algorithms.md#non-negativity, alternating up to the round cap), and return a
 * synopsis that answers any marginal query: by projection when a view covers it,
 * otherwise by maximum entropy over the views' intersections with the query (../../../docs/algorithms.md#answering-a-query),
 * for any query size. With `options.instantEps` the views are de-biased for the
 * composed permanent + instantaneous mechanism instead (see that option). Cost: O(sum of view cells) per post-processing round;
 * a query costs one projection or one IPF fit.
 */
export function estimateCalm(
  plan: CalmPlan,
  aggregator: CalmAggregator,
  options: CalmEstimateOptions = {},
): CalmIntervalSynopsis {
  checkAggregatorPlan("estimateCalm", plan, aggregator);
  const cardinalities = plan.schema.attributes.map((a) => a.labels.length);
  const emptyViews: number[] = [];
  const rawViews = plan.views.map((view, i) => {
    const viewCardinalities = view.attributes.map((a) => cardinalities[a]!);
    const counts = aggregator.views[i]!;
    if (counts.reports === 0) {
      emptyViews.push(i);
      return uniformTable(view.attributes, viewCardinalities);
    }
    const cells =
      options.instantEps === undefined
        ? counts.estimate()
        : composedEstimate(planRuntime(plan).oracles[i]!, counts, options.instantEps);
    return createTable(view.attributes, viewCardinalities, { cells, unit: "fraction" });
  });
  const postProcess =
    options.postProcess === false ? undefined : postProcessViews(rawViews, options.postProcessOptions);
  const views = postProcess ? postProcess.views : rawViews;
  const maxEntropyOptions = { ...(options.maxEntropy ?? {}), cardinalities };
  const answer = (attributes: readonly number[]): CalmAnswer => {
    const diagnostics = maxEntropy(views, attributes, maxEntropyOptions);
    return {
      table: diagnostics.table,
      method: diagnostics.method === "projection" ? "projection" : "maxent",
      diagnostics,
    };
  };
  const reportsPerView = aggregator.reportsPerView();
  const bootstrapCache = new Map<string, CalmSynopsis[]>();
  const replicatesOf = (count: number, seed: number): CalmSynopsis[] => {
    const key = `${count}/${seed}`;
    let replicates = bootstrapCache.get(key);
    if (!replicates) {
      replicates = bootstrapReplicates(plan, views, reportsPerView, count, seed, options);
      bootstrapCache.set(key, replicates);
    }
    return replicates;
  };
  const intervalQuery = intervalQueries({
    plan,
    rawViews,
    views,
    reportsPerView,
    instantEps: options.instantEps,
    answer,
    replicates: replicatesOf,
  });
  function query(attributes: readonly number[]): MarginalTable;
  function query(attributes: readonly number[], intervalOptions: CalmIntervalOptions): CalmIntervalTable;
  function query(
    attributes: readonly number[],
    intervalOptions?: CalmIntervalOptions,
  ): MarginalTable | CalmIntervalTable {
    if (intervalOptions === undefined) return answer(attributes).table;
    return intervalQuery(attributes, intervalOptions);
  }
  return {
    plan,
    views,
    rawViews,
    postProcess,
    emptyViews,
    answer,
    query,
  };
}

/** Cells clipped at 0 and normalised to sum 1 (uniform when nothing is left). O(cells). */
function fittedFractions(cells: Float64Array): Float64Array {
  const out = new Float64Array(cells.length);
  let total = 0;
  for (let u = 0; u < cells.length; u++) {
    const x = Math.max(cells[u]!, 0);
    out[u] = x;
    total += x;
  }
  if (total > 0) for (let u = 0; u < out.length; u++) out[u]! /= total;
  else out.fill(1 / out.length);
  return out;
}

/**
 * Parametric bootstrap of a CALM release: B times, every view's group draws its
 * true cells Multinomial(N_V, fitted view) (the released view, clipped and
 * normalised) and its support counts through the oracle's count-level simulation
 * (`simulateCounts`, the same law as the per-user reports); the replicate is
 * estimated exactly like the release (same options). Cost: B * (O(sum of view
 * cells) draws + one `estimateCalm`). @internal
 */
function bootstrapReplicates(
  plan: CalmPlan,
  views: readonly MarginalTable[],
  reportsPerView: readonly number[],
  count: number,
  seed: number,
  options: CalmEstimateOptions,
): CalmSynopsis[] {
  const rng = seededRng(seed, 0x18b0);
  const oracles = planRuntime(plan).oracles;
  const fitted = views.map((view) => fittedFractions(view.cells));
  const replicates: CalmSynopsis[] = [];
  for (let b = 0; b < count; b++) {
    const aggregator = new CalmAggregator(plan);
    plan.views.forEach((_, v) => {
      const N = reportsPerView[v]!;
      if (N === 0) return;
      const trueCounts = multinomial(rng, N, fitted[v]!);
      aggregator.views[v]!.addCounts(oracles[v]!.simulateCounts(trueCounts, rng), N);
    });
    replicates.push(estimateCalm(plan, aggregator, options));
  }
  return replicates;
}
