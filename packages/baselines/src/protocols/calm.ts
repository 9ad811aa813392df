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
import type { RecordStore } from "@calm-ldp/marginal-algebra";
import type { Rng } from "@calm-ldp/random";
import type { BePlan } from "../api.js";
import {
  type BinaryCalmSynopsis,
  binaryCalmEstimate,
  binaryCalmPopulation,
  binaryCalmReport,
  planBinaryCalm,
} from "../binary-calm.js";
import type { RegistryMethod } from "./family.js";

/** CALM's per-user path (every record through the real client kernel): `simulateCalm` with path "per-user". */
function calmPerUser(plan: CalmPlan, data: RecordStore, rng: Rng): CalmAggregator {
  return simulateCalm(plan, data, rng, { path: "per-user" });
}

/** CALM in the registry: calm-core's protocol plus its per-user path. */
export type CalmMethod = RegistryMethod<CalmPlan, CalmReport, CalmSynopsis>;

/**
 * CALM itself (calm-core's `createCalmProtocol`), with `simulatePerUser` =
 * `simulateCalm(..., { path: "per-user" })`, so the harness finds every method in
 * one registry.
 * Building the method is O(1); its costs are those of its family functions.
 */
export function createCalm(options: CalmProtocolOptions = {}): CalmMethod {
  return { ...createCalmProtocol(options), id: "calm", label: "CALM", simulatePerUser: calmPerUser };
}

/** calm-plus in the registry: CALM's protocol and reports, calm-core's `estimateCalmPlus`. */
export type CalmPlusMethod = RegistryMethod<CalmPlan, CalmReport, CalmPlusSynopsis>;

/**
 * calm-plus (calm-core's `createCalmPlusProtocol`): the same plan, reports,
 * aggregator and simulations as "calm"; only the estimation differs.
 * Building the method is O(1); its costs are those of its family functions.
 */
export function createCalmPlus(options: CalmPlusProtocolOptions = {}): CalmPlusMethod {
  return {
    ...createCalmPlusProtocol(options),
    id: "calm-plus",
    label: "CALM+",
    simulatePerUser: calmPerUser,
  };
}

/** BE (CALM §5): CALM on the binary encoding of the attributes. */
export type BeMethod = RegistryMethod<BePlan, CalmReport, BinaryCalmSynopsis>;

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
