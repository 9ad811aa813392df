import {
  CalmAggregator,
  type CalmPlan,
  type CalmProtocolOptions,
  type CalmReport,
  type CalmSynopsis,
  calmReport,
  estimateCalm,
  planCalm,
  simulateCalm,
} from "@calm-ldp/calm-core";
import {
  encodeRecord,
  encodeStore,
  type MarginalTable,
  type ProtocolParameters,
  type RecordStore,
  type ReportAggregator,
} from "@calm-ldp/marginal-algebra";
import type { Rng } from "@calm-ldp/random";
import type { BaselineSynopsis, BePlan, PopulationPath } from "./api.js";
import { decodeAnswer, encodedQuery, encodingRuntime } from "./encoding.js";
import { InvalidParameterError } from "./errors.js";
import { checkParameters, checkQuery, checkRecord, checkStore, planBase } from "./params.js";

/**
 * Plan BE (CALM §5 baseline): CALM (calm-core's `planCalm`, Algorithm 1 and all)
 * run on the binary encoding of the schema, with k = the largest number of bits a
 * k-way query of the source attributes spans (the sum of the k largest
 * `ceil(log2 c_i)`). Lives here because baselines already depends on calm-core
 * (calm-core cannot depend on baselines). Refusals are calm-core's `CannotRunError`.
 * Cost: O(d) plus `planCalm` on the encoded schema.
 */
export function planBinaryCalm(parameters: ProtocolParameters, options: CalmProtocolOptions = {}): BePlan {
  checkParameters("be.plan", parameters);
  const encoding = encodingRuntime(parameters.schema);
  const kBits = [...encoding.bits]
    .sort((x, y) => y - x)
    .slice(0, parameters.k)
    .reduce((s, b) => s + b, 0);
  const calm = planCalm(
    { schema: encoding.encoding.schema, n: parameters.n, eps: parameters.eps, k: kBits },
    options,
  );
  return {
    ...planBase("be", parameters, encoding.bits),
    calm,
  };
}

/** Client of BE: encode the record's bits, then CALM's client on them. O(total bits + CALM's cost). */
export function binaryCalmReport(plan: BePlan, record: ArrayLike<number>, rng: Rng): CalmReport {
  const encoding = encodingRuntime(plan.schema);
  checkRecord("be.report", record, encoding.cardinalities);
  return calmReport(plan.calm, encodeRecord(encoding.encoding, record), { rng });
}

/** A population through BE: `encodeStore`, then calm-core's `simulateCalm` on the chosen path. O(n total bits + CALM's). */
export function binaryCalmPopulation(
  plan: BePlan,
  store: RecordStore,
  rng: Rng,
  path: PopulationPath,
): CalmAggregator {
  const encoding = encodingRuntime(plan.schema);
  checkStore(`be.${path === "counts" ? "simulate" : "simulatePerUser"}`, store, encoding.cardinalities);
  return simulateCalm(plan.calm, encodeStore(encoding.encoding, store), rng, { path });
}

/** The synopsis of BE: CALM's synopsis over the bits, and answers decoded onto the source attributes. */
export interface BinaryCalmSynopsis extends BaselineSynopsis {
  readonly plan: BePlan;
  readonly calm: CalmSynopsis;
}

/**
 * Server of BE: calm-core's `estimateCalm` over the bits; a query over source
 * attributes is CALM's answer over their bits, decoded, the mass CALM put on codes
 * that encode no value removed and the rest renormalised (CALM's answers are
 * distributions). Cost: CALM's estimate; per query CALM's answer plus O(bit cells) to decode.
 */
export function binaryCalmEstimate(
  plan: BePlan,
  aggregator: ReportAggregator<CalmReport>,
  options: CalmProtocolOptions = {},
): BinaryCalmSynopsis {
  if (!(aggregator instanceof CalmAggregator))
    throw new InvalidParameterError("be.estimate: the aggregator must come from be.createAggregator");
  const calm = estimateCalm(plan.calm as CalmPlan, aggregator, options);
  const encoding = encodingRuntime(plan.schema);
  const query = (attributes: readonly number[]): MarginalTable => {
    const q = checkQuery("be.query", attributes, encoding.cardinalities.length);
    return decodeAnswer(encoding, calm.query(encodedQuery(encoding, q)), true);
  };
  return { plan, calm, query };
}
