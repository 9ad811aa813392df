import type { BaselineOptions, BaselineProtocol, UniPlan } from "../api.js";
import { expectedSseUniform } from "../expected-sse.js";
import {
  planUniform,
  UniformAggregator,
  uniformEstimate,
  uniformPopulation,
  uniformReport,
} from "../uniform-method.js";

/** Uni (CALM §5): the uniform table for every query; a method worse than Uni is useless at that setting.
 * Building the method is O(1); its costs are those of its family functions. */
export function createUni(_options: BaselineOptions = {}): BaselineProtocol<UniPlan, null> {
  return {
    id: "uni",
    label: "Uni",
    plan: planUniform,
    report: (plan, record) => uniformReport(plan, record),
    createAggregator: (plan) => new UniformAggregator(plan),
    estimate: uniformEstimate,
    simulate: (plan, data) => uniformPopulation(plan, data),
    simulatePerUser: (plan, data) => uniformPopulation(plan, data),
    expectedSse: expectedSseUniform,
  };
}
