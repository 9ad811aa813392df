import { checkAnswers } from "../answers.js";
import type { BaselineOptions, BaselineProtocol, HadamardPlan, HadamardReport } from "../api.js";
import { expectedSseHadamard } from "../expected-sse.js";
import {
  HadamardAggregator,
  hadamardEstimate,
  hadamardPerUser,
  hadamardReport,
  hadamardSimulate,
  planHadamard,
} from "../hadamard-kernel.js";

type HadamardMethod = BaselineProtocol<HadamardPlan, HadamardReport>;

function hadamardMethod(id: HadamardPlan["method"], label: string, options: BaselineOptions): HadamardMethod {
  const answers = checkAnswers(id, options.answers);
  return {
    id,
    label,
    plan: (parameters) => planHadamard(id, parameters, options),
    report: hadamardReport,
    createAggregator: (plan) => new HadamardAggregator(plan),
    estimate: (plan, aggregator) => hadamardEstimate(plan, aggregator, answers),
    simulate: hadamardSimulate,
    simulatePerUser: hadamardPerUser,
    expectedSse: expectedSseHadamard,
  };
}

/**
 * InpHT (Cormode et al. §4.2, ../../../../docs/algorithms.md#hadamard-methods): each user reports one Hadamard
 * coefficient of her (binary-encoded) record, drawn uniformly from the non-empty
 * sets touching 1..k attributes, through binary RR with the whole eps.
 * Building the method is O(1); its costs are those of its family functions.
 */
export function createInpHt(options: BaselineOptions = {}): HadamardMethod {
  return hadamardMethod("inpht", "InpHT", options);
}

/** FT (CALM §3.5): the CALM paper's name for InpHT on binary-encoded data; the same method under the id "ft".
 * Building the method is O(1); its costs are those of its family functions. */
export function createFt(options: BaselineOptions = {}): HadamardMethod {
  return hadamardMethod("ft", "FT", options);
}

/**
 * MargHT (Cormode et al. §4.3): a random k-way marginal, one of its 2^k - 1
 * non-empty Hadamard coefficients, through binary RR; marginals do not share
 * coefficients.
 * Building the method is O(1); its costs are those of its family functions.
 */
export function createMargHt(options: BaselineOptions = {}): HadamardMethod {
  return hadamardMethod("marght", "MargHT", options);
}
