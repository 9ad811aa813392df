import { checkAnswers } from "../answers.js";
import type { BaselineOptions, BaselineProtocol, FullDomainPlan, FullDomainReport } from "../api.js";
import { expectedSseFullDomain } from "../expected-sse.js";
import {
  FullDomainAggregator,
  fullDomainEstimate,
  fullDomainPerUser,
  fullDomainReport,
  fullDomainSimulate,
  planFullDomain,
} from "../full-domain-kernel.js";

type FullDomainMethod = BaselineProtocol<FullDomainPlan, FullDomainReport>;

function fullDomainMethod(
  id: FullDomainPlan["method"],
  label: string,
  options: BaselineOptions,
  countLevel: boolean,
): FullDomainMethod {
  const answers = checkAnswers(`${id}`, options.answers);
  const method: FullDomainMethod = {
    id,
    label,
    plan: (parameters) => planFullDomain(id, parameters, options),
    report: fullDomainReport,
    createAggregator: (plan) => new FullDomainAggregator(plan),
    estimate: (plan, aggregator) => fullDomainEstimate(plan, aggregator, answers),
    simulatePerUser: (plan, data, rng) => fullDomainPerUser(plan, data, rng, options),
    expectedSse: expectedSseFullDomain,
  };
  return countLevel ? { ...method, simulate: fullDomainSimulate } : method;
}

/**
 * FC (CALM §3.3): every user reports her whole record, a cell of the full
 * contingency table (`prod c_i` cells), through the adaptive FO (GRR or OUE); a
 * marginal is a sum of the estimated full table. Exact count-level simulation.
 * Refuses when the full table exceeds `maxCells` (d = 32 binary: 2^32 cells).
 * Building the method is O(1); its costs are those of its family functions.
 */
export function createFc(options: BaselineOptions = {}): FullDomainMethod {
  return fullDomainMethod("fc", "FC", options, true);
}

/**
 * InpRR (Cormode et al. §4.2): every bit of the one-hot full binary table through
 * RR with eps/2 (SUE over 2^{total bits}). Exact count-level simulation.
 * Building the method is O(1); its costs are those of its family functions.
 */
export function createInpRr(options: BaselineOptions = {}): FullDomainMethod {
  return fullDomainMethod("inprr", "InpRR", options, true);
}

/** InpPS (Cormode et al. §4.2): the record's binary code through GRR over 2^{total bits}. Exact count-level simulation.
 * Building the method is O(1); its costs are those of its family functions. */
export function createInpPs(options: BaselineOptions = {}): FullDomainMethod {
  return fullDomainMethod("inpps", "InpPS", options, true);
}

/**
 * InpOLH (Cormode et al. appendix B.2): the record's binary code through OLH
 * (g = round(e^eps) + 1) over 2^{total bits}; the server evaluates every user's
 * hash on the whole domain (O(n D)). No count-level simulation (the hash makes the
 * joint law of the support counts intractable): runs per user.
 * Building the method is O(1); its costs are those of its family functions.
 */
export function createInpOlh(options: BaselineOptions = {}): FullDomainMethod {
  return fullDomainMethod("inpolh", "InpOLH", options, false);
}
