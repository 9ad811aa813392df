import { checkAnswers } from "../answers.js";
import type {
  BaselineProtocol,
  HadamardSketchReport,
  SketchOptions,
  SketchPlan,
  SketchReport,
} from "../api.js";
import {
  CmsAggregator,
  cmsEstimate,
  cmsPerUser,
  cmsReport,
  cmsSimulate,
  HcmsAggregator,
  hcmsEstimate,
  hcmsPerUser,
  hcmsReport,
  hcmsSimulate,
  planSketch,
} from "../sketch-kernel.js";

/**
 * InpCMS (Cormode et al. appendix B.2; Apple's count-mean sketch): each user picks
 * one of g public hash functions and reports her row's hashed binary code through
 * SUE over the width; the server's count-mean estimate of the full table is
 * marginalised. Options: rows (g, default 5), width (w, default 256), seed.
 * Building the method is O(1); its costs are those of its family functions.
 */
export function createInpCms(options: SketchOptions = {}): BaselineProtocol<SketchPlan, SketchReport> {
  const answers = checkAnswers("inpcms", options.answers);
  return {
    id: "inpcms",
    label: "InpCMS",
    plan: (parameters) => planSketch("inpcms", parameters, options),
    report: cmsReport,
    createAggregator: (plan) => new CmsAggregator(plan),
    estimate: (plan, aggregator) => cmsEstimate(plan, aggregator, answers),
    simulate: cmsSimulate,
    simulatePerUser: cmsPerUser,
  };
}

/**
 * InpHTCMS (Cormode et al. appendix B.2; Apple's Hadamard count-mean sketch): a
 * random row and one non-zero Hadamard coefficient of the one-hot hashed value,
 * its sign through binary RR with eps; rows are rebuilt by the inverse FWHT.
 * Building the method is O(1); its costs are those of its family functions.
 */
export function createInpHtCms(
  options: SketchOptions = {},
): BaselineProtocol<SketchPlan, HadamardSketchReport> {
  const answers = checkAnswers("inphtcms", options.answers);
  return {
    id: "inphtcms",
    label: "InpHTCMS",
    plan: (parameters) => planSketch("inphtcms", parameters, options),
    report: hcmsReport,
    createAggregator: (plan) => new HcmsAggregator(plan),
    estimate: (plan, aggregator) => hcmsEstimate(plan, aggregator, answers),
    simulate: hcmsSimulate,
    simulatePerUser: hcmsPerUser,
  };
}
