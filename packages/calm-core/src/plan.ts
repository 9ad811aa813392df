import { coverDesignSize } from "@calm-ldp/covering-design";
import { type ProtocolParameters, type Schema, validateSchema } from "@calm-ldp/marginal-algebra";
import {
  CALM_PLAN_VERSION,
  type CalmPlan,
  type CalmPlanOptions,
  type PlanView,
  type ViewOracleName,
} from "./api.js";
import { binomialCoefficient, chooseParameters, type ParameterChoice } from "./choose-parameters.js";
import { CannotRunError, invalid } from "./errors.js";
import { noiseError, samplingError } from "./noise-error.js";
import { selectViews } from "./view-selection.js";

/**
 * The adaptive frequency oracle of CALM (§4.2): GRR when D - 2 < 3 e^eps,
 * otherwise OUE (../../../docs/algorithms.md#frequency-oracles). O(1).
 */
export function adaptiveOracle(cells: number, eps: number): ViewOracleName {
  return cells - 2 < 3 * Math.exp(eps) ? "grr" : "oue";
}

function cardinalitiesOf(schema: Schema): number[] {
  return schema.attributes.map((attribute) => attribute.labels.length);
}

/**
 * Plan a CALM round (Zhang et al., CCS 2018, §4): choose l and m by Algorithm 1
 * (unless overridden), choose the views (a covering design of the k-subsets when
 * l >= k, then balanced or random views up to m), and fix each view's oracle
 * (adaptive GRR/OUE unless overridden). Deterministic: the same parameters and
 * options give the same plan. Throws `CannotRunError` when there are fewer users
 * than views. Cost: Algorithm 1 plus the view choice (milliseconds for d <= 64).
 */
export function planCalm(parameters: ProtocolParameters, options: CalmPlanOptions = {}): CalmPlan {
  const { schema, n, eps } = parameters;
  const k = options.planForK ?? parameters.k;
  if (options.planForK !== undefined && (!Number.isInteger(options.planForK) || options.planForK < 1)) {
    invalid("planCalm", "planForK must be an integer >= 1", options.planForK);
  }
  validateSchema(schema, "planCalm");
  const cardinalities = cardinalitiesOf(schema);
  const d = cardinalities.length;
  const theta = options.theta ?? 0.001;
  const choice = chooseParameters({ n, cardinalities, eps, k, theta });
  let { l, m } = choice;
  let covering = choice.covering;
  let candidates = choice.candidates;
  if (options.l !== undefined) {
    if (!Number.isInteger(options.l) || options.l < 1 || options.l > d)
      invalid("planCalm", `l must be an integer in [1, d = ${d}]`, options.l);
    l = options.l;
    covering = l >= k && coverDesignSize(d, l, k) <= Math.max(choice.mU, options.m ?? 0);
    m = covering ? coverDesignSize(d, l, k) : Math.min(choice.mU, binomialCoefficient(d, l));
    candidates = [candidateFor(parameters, k, cardinalities, l, m)];
  }
  if (options.m !== undefined) {
    if (!Number.isInteger(options.m) || options.m < 1)
      invalid("planCalm", "m must be an integer >= 1", options.m);
    m = Math.min(options.m, binomialCoefficient(d, l));
    if (covering && m < coverDesignSize(d, l, k)) covering = false;
    candidates = [candidateFor(parameters, k, cardinalities, l, m)];
  }
  if (m < 1) {
    throw new CannotRunError(
      `planCalm: theta * n = ${theta * n} allows no view; raise n to at least ${Math.ceil(1 / theta)} or theta, or set m`,
    );
  }
  if (n < m) throw new CannotRunError(`planCalm: ${m} views need at least ${m} users (n = ${n})`);
  const selection = options.selection ?? "balanced";
  const views = selectViews(d, l, m, {
    selection,
    seed: options.seed ?? 0,
    ...(covering ? { cover: { k } } : {}),
  });
  const forced = options.oracle && options.oracle !== "adaptive" ? options.oracle : undefined;
  const planViews: PlanView[] = views.map((attributes) => {
    const cells = attributes.reduce((product, a) => product * cardinalities[a]!, 1);
    return { attributes, cells, oracle: forced ?? adaptiveOracle(cells, eps) };
  });
  return {
    method: "calm",
    version: CALM_PLAN_VERSION,
    eps,
    n,
    k,
    schema: { attributes: schema.attributes.map((a) => ({ name: a.name, labels: [...a.labels] })) },
    theta,
    l,
    m: planViews.length,
    candidates,
    selection,
    covering,
    views: planViews,
    assignment: options.assignment ?? "random",
  };
}

function candidateFor(
  parameters: ProtocolParameters,
  k: number,
  cardinalities: number[],
  l: number,
  m: number,
) {
  return {
    l,
    m,
    kNE: k * noiseError(parameters.n, cardinalities, parameters.eps, l),
    SE: samplingError(parameters.n, m),
  };
}

export type { ParameterChoice };
