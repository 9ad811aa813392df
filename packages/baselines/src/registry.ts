import type { CalmProtocolOptions } from "@calm-ldp/calm-core";
import type { BaselineProtocol, MethodId, MethodInfo, MethodOptions } from "./api.js";
import { fail } from "./errors.js";
import { createBe, createCalm, createCalmPlus } from "./methods/calm.js";
import { createEm, createInpEm } from "./methods/em.js";
import { createFc, createInpOlh, createInpPs, createInpRr } from "./methods/full-domain.js";
import { createAm, createMargPs, createMargRr } from "./methods/group.js";
import { createFt, createInpHt, createMargHt } from "./methods/hadamard.js";
import { createInpCms, createInpHtCms } from "./methods/sketch.js";
import { createUni } from "./methods/uni.js";

/** Every method id, CALM first, then calm-plus (this project's estimator on CALM's reports), then the CALM paper's baselines, then Cormode et al.'s. */
export const METHOD_IDS: readonly MethodId[] = Object.freeze([
  "calm",
  "calm-plus",
  "fc",
  "am",
  "ft",
  "em",
  "uni",
  "be",
  "inprr",
  "inpps",
  "inpht",
  "margrr",
  "margps",
  "marght",
  "inpem",
  "inpolh",
  "inpcms",
  "inphtcms",
]);

/** The nine mechanisms of Cormode et al.'s public code (the speed benchmark's set). */
export const CORMODE_CODE_METHODS: readonly MethodId[] = Object.freeze([
  "inprr",
  "margrr",
  "inpht",
  "marght",
  "inpps",
  "margps",
  "inpolh",
  "inpcms",
  "inphtcms",
]);

const info = (
  id: MethodId,
  label: string,
  paper: MethodInfo["paper"],
  data: MethodInfo["data"],
  countLevel: boolean,
  expectedSse: boolean,
  summary: string,
): MethodInfo => Object.freeze({ id, label, paper, data, countLevel, expectedSse, summary });

/** Static facts about every method, by id. */
export const METHOD_INFO: Readonly<Record<MethodId, MethodInfo>> = Object.freeze({
  calm: info(
    "calm",
    "CALM",
    "CALM",
    "native",
    true,
    false,
    "views of l attributes, users split into m groups, adaptive FO, consistency, max entropy",
  ),
  "calm-plus": info(
    "calm-plus",
    "CALM+",
    "calm-ldp",
    "native",
    true,
    false,
    "CALM's reports; every view's interaction coefficients pooled by variance, shrunk toward independence/Uni (empirical Bayes), then CALM's non-negativity and max entropy",
  ),
  fc: info("fc", "FC", "CALM", "native", true, true, "the full contingency table through the adaptive FO"),
  am: info(
    "am",
    "AM",
    "CALM",
    "native",
    true,
    true,
    "users split into C(d,k) groups, one k-way marginal each, adaptive FO",
  ),
  ft: info("ft", "FT", "CALM", "binary-encoding", true, true, "InpHT on the binary encoding (CALM's name)"),
  em: info(
    "em",
    "EM",
    "CALM",
    "native",
    false,
    false,
    "every attribute with eps/d, EM per query from the inclusion-exclusion estimate",
  ),
  uni: info("uni", "Uni", "CALM", "native", true, true, "the uniform table"),
  be: info("be", "BE", "CALM", "binary-encoding", true, false, "CALM on the binary encoding"),
  inprr: info(
    "inprr",
    "InpRR",
    "Cormode et al.",
    "binary-encoding",
    true,
    true,
    "SUE (RR with eps/2 per bit) over the full binary domain",
  ),
  inpps: info(
    "inpps",
    "InpPS",
    "Cormode et al.",
    "binary-encoding",
    true,
    true,
    "GRR over the full binary domain",
  ),
  inpht: info(
    "inpht",
    "InpHT",
    "Cormode et al.",
    "binary-encoding",
    true,
    true,
    "one Hadamard coefficient of weight 1..k through RR",
  ),
  margrr: info(
    "margrr",
    "MargRR",
    "Cormode et al.",
    "binary-encoding",
    true,
    true,
    "a random k-way marginal through SUE",
  ),
  margps: info(
    "margps",
    "MargPS",
    "Cormode et al.",
    "binary-encoding",
    true,
    true,
    "a random k-way marginal through GRR",
  ),
  marght: info(
    "marght",
    "MargHT",
    "Cormode et al.",
    "binary-encoding",
    true,
    true,
    "a random k-way marginal's Hadamard coefficient through RR",
  ),
  inpem: info(
    "inpem",
    "InpEM",
    "Cormode et al.",
    "binary-encoding",
    false,
    false,
    "every bit with eps/d, EM per query from the uniform prior",
  ),
  inpolh: info(
    "inpolh",
    "InpOLH",
    "Cormode et al.",
    "binary-encoding",
    false,
    true,
    "OLH over the full binary domain",
  ),
  inpcms: info(
    "inpcms",
    "InpCMS",
    "Cormode et al.",
    "binary-encoding",
    true,
    false,
    "count-mean sketch (SUE per row) over the full binary domain",
  ),
  inphtcms: info(
    "inphtcms",
    "InpHTCMS",
    "Cormode et al.",
    "binary-encoding",
    true,
    false,
    "Hadamard count-mean sketch over the full binary domain",
  ),
});

/** Whether `id` is a method id. O(1). */
export function isMethodId(id: unknown): id is MethodId {
  return typeof id === "string" && Object.hasOwn(METHOD_INFO, id);
}

/**
 * A method by id with its options (each method reads its own: size limits and
 * `answers` for every baseline; rows/width/seed for the sketches; tolerance,
 * maxIterations, initialization, initialMix for EM/InpEM; `calm` for CALM and
 * BE; `calmPlus` for calm-plus (default `calm`); for "calm" and "calm-plus" the
 * options may also be CALM's own, e.g. `{ theta }`). Throws
 * InvalidParameterError for an unknown id. O(1).
 */
export function createMethod(
  id: string,
  given: MethodOptions | Readonly<Record<string, unknown>> = {},
): BaselineProtocol {
  const options = given as MethodOptions;
  const calmOptions = options.calm ?? (given as CalmProtocolOptions);
  let method: BaselineProtocol<never, never>;
  switch (id) {
    case "calm":
      method = createCalm(calmOptions) as never;
      break;
    case "calm-plus":
      method = createCalmPlus(options.calmPlus ?? calmOptions) as never;
      break;
    case "be":
      method = createBe(calmOptions) as never;
      break;
    case "fc":
      method = createFc(options) as never;
      break;
    case "am":
      method = createAm(options) as never;
      break;
    case "ft":
      method = createFt(options) as never;
      break;
    case "em":
      method = createEm(options) as never;
      break;
    case "uni":
      method = createUni(options) as never;
      break;
    case "inprr":
      method = createInpRr(options) as never;
      break;
    case "inpps":
      method = createInpPs(options) as never;
      break;
    case "inpht":
      method = createInpHt(options) as never;
      break;
    case "margrr":
      method = createMargRr(options) as never;
      break;
    case "margps":
      method = createMargPs(options) as never;
      break;
    case "marght":
      method = createMargHt(options) as never;
      break;
    case "inpem":
      method = createInpEm(options) as never;
      break;
    case "inpolh":
      method = createInpOlh(options) as never;
      break;
    case "inpcms":
      method = createInpCms(options) as never;
      break;
    case "inphtcms":
      method = createInpHtCms(options) as never;
      break;
    default:
      return fail("createMethod", `id must be one of ${METHOD_IDS.join(", ")}`, id);
  }
  return method as unknown as BaselineProtocol;
}
