import {
  CalmAggregator,
  type CalmPlan,
  type CalmPlusProtocolOptions,
  type CalmPlusSynopsis,
  type CalmProtocolOptions,
  type CalmReport,
  type CalmSynopsis,
  createCalmPlusProtocol,
  createCalmProtocol,
  simulateCalm,
} from "@calm-ldp/calm-core";
import type { ReportAggregator } from "@calm-ldp/marginal-algebra";
import type { BaselineProtocol, BePlan } from "../api.js";
import {
  type BinaryCalmSynopsis,
  binaryCalmEstimate,
  binaryCalmPopulation,
  binaryCalmReport,
  planBinaryCalm,
} from "../binary-calm.js";

/** CALM in the registry: calm-core's protocol plus its per-user path. */
export interface CalmMethod extends BaselineProtocol<CalmPlan, CalmReport> {
  estimate(plan: CalmPlan, aggregator: ReportAggregator<CalmReport>): CalmSynopsis;
}

/**
 * CALM itself (calm-core's `createCalmProtocol`), with `simulatePerUser` =
 * `simulateCalm(..., { path: "per-user" })`, so the harness finds every method in
 * one registry.
 * Building the method is O(1); its costs are those of its family functions.
 */
export function createCalm(options: CalmProtocolOptions = {}): CalmMethod {
  const calm = createCalmProtocol(options);
  return {
    ...calm,
    id: "calm",
    label: "CALM",
    simulatePerUser: (plan, data, rng) => simulateCalm(plan, data, rng, { path: "per-user" }),
  };
}

/** calm-plus in the registry: CALM's protocol and reports, calm-core's `estimateCalmPlus`. */
export interface CalmPlusMethod extends BaselineProtocol<CalmPlan, CalmReport> {
  estimate(plan: CalmPlan, aggregator: ReportAggregator<CalmReport>): CalmPlusSynopsis;
}

/**
 * calm-plus (calm-core's `createCalmPlusProtocol`): the same plan, reports,
 * aggregator and simulations as "calm"; only the estimation differs.
 * Building the method is O(1); its costs are those of its family functions.
 */
export function createCalmPlus(options: CalmPlusProtocolOptions = {}): CalmPlusMethod {
  const plus = createCalmPlusProtocol(options);
  return {
    ...plus,
    id: "calm-plus",
    label: "CALM+",
    simulatePerUser: (plan, data, rng) => simulateCalm(plan, data, rng, { path: "per-user" }),
  };
}

/** BE (CALM §5): CALM on the binary encoding of the attributes. */
export interface BeMethod extends BaselineProtocol<BePlan, CalmReport> {
  estimate(plan: BePlan, aggregator: ReportAggregator<CalmReport>): BinaryCalmSynopsis;
}

/** BE: CALM run on the binary encoding (calm-core's plan, client, estimate and simulation on the encoded bits).
 * Building the method is O(1); its costs are those of its family functions. */
export function createBe(options: CalmProtocolOptions = {}): BeMethod {
  return {
    id: "be",
    label: "BE",
    plan: (parameters) => planBinaryCalm(parameters, options),
    report: binaryCalmReport,
    createAggregator: (plan) => new CalmAggregator(plan.calm),
    estimate: (plan, aggregator) => binaryCalmEstimate(plan, aggregator, options),
    simulate: (plan, data, rng) => binaryCalmPopulation(plan, data, rng, "counts"),
    simulatePerUser: (plan, data, rng) => binaryCalmPopulation(plan, data, rng, "per-user"),
  };
}
