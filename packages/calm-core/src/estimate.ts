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
import { type MaxEntropyOptions, type MaxEntropyResult, maxEntropy } from "@calm-ldp/reconstruction";
import { type CalmAggregator, checkAggregatorPlan } from "./aggregator.js";
import type { CalmPlan } from "./api.js";
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
 * (ALGORITHMS.md §3.2-3.3, alternating up to the round cap), and return a
 * synopsis that answers any marginal query: by projection when a view covers it,
 * otherwise by maximum entropy over the views' intersections with the query (§3.4),
 * for any query size. With `options.instantEps` the views are de-biased for the
 * composed permanent + instantaneous mechanism instead (see that option). Cost: O(sum of view cells) per post-processing round;
 * a query costs one projection or one IPF fit.
 */
export function estimateCalm(
  plan: CalmPlan,
  aggregator: CalmAggregator,
  options: CalmEstimateOptions = {},
): CalmSynopsis {
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
  return {
    plan,
    views,
    rawViews,
    postProcess,
    emptyViews,
    answer,
    query: (attributes) => answer(attributes).table,
  };
}
