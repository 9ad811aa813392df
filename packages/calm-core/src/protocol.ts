import type { MarginalProtocol, ProtocolParameters, ReportAggregator } from "@calm-ldp/marginal-algebra";
import type { Rng } from "@calm-ldp/random";
import { CalmAggregator } from "./aggregator.js";
import type { CalmPlan, CalmPlanOptions, CalmReport } from "./api.js";
import { calmReport } from "./client.js";
import { InvalidParameterError } from "./errors.js";
import { type CalmEstimateOptions, type CalmSynopsis, estimateCalm } from "./estimate.js";
import { type CalmPlusEstimateOptions, type CalmPlusSynopsis, estimateCalmPlus } from "./estimate-plus.js";
import { planCalm } from "./plan.js";
import { simulateCalm } from "./simulate.js";

/** Options of {@link createCalmProtocol}: the plan overrides and the server's estimation options. */
export interface CalmProtocolOptions extends CalmPlanOptions, CalmEstimateOptions {}

/** CALM as a {@link MarginalProtocol}: what the harness, the CLI and the collector run. */
export interface CalmProtocol extends MarginalProtocol<CalmPlan, CalmReport> {
  estimate(plan: CalmPlan, aggregator: ReportAggregator<CalmReport>): CalmSynopsis;
}

/**
 * CALM behind the `MarginalProtocol` interface (id "calm"): plan = {@link planCalm},
 * report = {@link calmReport}, aggregator = {@link CalmAggregator}, estimate =
 * {@link estimateCalm}, simulate = {@link simulateCalm} (count level).
 */
export function createCalmProtocol(options: CalmProtocolOptions = {}): CalmProtocol {
  return {
    id: "calm",
    plan: (parameters: ProtocolParameters) => planCalm(parameters, options),
    report: (plan: CalmPlan, record: ArrayLike<number>, rng: Rng) => calmReport(plan, record, { rng }),
    createAggregator: (plan: CalmPlan) => new CalmAggregator(plan),
    estimate(plan: CalmPlan, aggregator: ReportAggregator<CalmReport>) {
      if (!(aggregator instanceof CalmAggregator))
        throw new InvalidParameterError("calm.estimate: the aggregator must come from calm.createAggregator");
      return estimateCalm(plan, aggregator, options);
    },
    simulate: (plan, data, rng) => simulateCalm(plan, data, rng, { path: "counts" }),
  };
}

/** Options of {@link createCalmPlusProtocol}: CALM's plan overrides and calm-plus's estimation options. */
export interface CalmPlusProtocolOptions extends CalmPlanOptions, CalmPlusEstimateOptions {}

/** calm-plus as a {@link MarginalProtocol}: CALM's protocol, a better estimator. */
export interface CalmPlusProtocol extends MarginalProtocol<CalmPlan, CalmReport> {
  estimate(plan: CalmPlan, aggregator: ReportAggregator<CalmReport>): CalmPlusSynopsis;
}

/**
 * calm-plus behind the `MarginalProtocol` interface (id "calm-plus"): the same
 * plan ({@link planCalm}), client reports, aggregator and simulation as CALM, so
 * both estimate from the very same reports; estimate = {@link estimateCalmPlus}
 * (pooling of every view's interaction coefficients by their variances,
 * empirical-Bayes shrinkage toward independence / Uni, CALM's non-negativity and
 * maximum entropy). Building it is O(1).
 */
export function createCalmPlusProtocol(options: CalmPlusProtocolOptions = {}): CalmPlusProtocol {
  const calm = createCalmProtocol(options);
  return {
    ...calm,
    id: "calm-plus",
    estimate(plan: CalmPlan, aggregator: ReportAggregator<CalmReport>) {
      if (!(aggregator instanceof CalmAggregator))
        throw new InvalidParameterError(
          "calm-plus.estimate: the aggregator must come from calm-plus.createAggregator",
        );
      return estimateCalmPlus(plan, aggregator, options);
    },
  };
}
