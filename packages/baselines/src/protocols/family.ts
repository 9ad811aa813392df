import type {
  MarginalSynopsis,
  ProtocolParameters,
  ProtocolPlan,
  RecordStore,
  ReportAggregator,
} from "@calm-ldp/marginal-algebra";
import type { Rng } from "@calm-ldp/random";
import { checkAnswers } from "../answers.js";
import type {
  AnswerPostProcessing,
  BaselineOptions,
  BaselinePlanBase,
  BaselineProtocol,
  BaselineSynopsis,
} from "../api.js";

/**
 * @internal The kernel functions a family of methods shares (e.g. AM, MargRR and
 * MargPS are one family: `planGroups`, `groupReport`, `GroupAggregator`, ...); a
 * method of the family is its id, its label and the caller's options.
 */
export interface MethodFamily<
  Plan extends BaselinePlanBase,
  Report,
  Options extends BaselineOptions,
  Synopsis extends BaselineSynopsis,
> {
  plan(method: Plan["method"], parameters: ProtocolParameters, options: Options): Plan;
  report(plan: Plan, record: ArrayLike<number>, rng: Rng): Report;
  readonly Aggregator: new (plan: Plan) => ReportAggregator<Report>;
  /** `answers` is the checked `options.answers`. */
  estimate(
    plan: Plan,
    aggregator: ReportAggregator<Report>,
    answers: AnswerPostProcessing,
    options: Options,
  ): Synopsis;
  /** Exact count-level simulation, where the family has one. */
  readonly simulate?: (plan: Plan, data: RecordStore, rng: Rng) => ReportAggregator<Report>;
  simulatePerUser(plan: Plan, data: RecordStore, rng: Rng, options: Options): ReportAggregator<Report>;
  readonly expectedSse?: BaselineProtocol<Plan, Report>["expectedSse"];
  /** The declared report law, where the family has one. */
  readonly reportLaw?: BaselineProtocol<Plan, Report>["reportLaw"];
}

/** A method of the registry: a {@link BaselineProtocol} with its label, its per-user path and its synopsis type. */
export interface RegistryMethod<Plan extends ProtocolPlan, Report, Synopsis extends MarginalSynopsis>
  extends BaselineProtocol<Plan, Report> {
  readonly label: string;
  estimate(plan: Plan, aggregator: ReportAggregator<Report>): Synopsis;
  simulatePerUser(plan: Plan, data: RecordStore, rng: Rng): ReportAggregator<Report>;
}

/** @internal A method's constructor, as `createFc` etc.: the caller's options in, the method out. */
export type MethodConstructor<
  Plan extends ProtocolPlan,
  Report,
  Synopsis extends MarginalSynopsis,
  Options extends BaselineOptions,
> = (options?: Options) => RegistryMethod<Plan, Report, Synopsis>;

/**
 * @internal The constructor of method `id` of a family: `(options) =>` the family's
 * functions bound to the caller's options (checked here: `answers`; the rest when
 * planning). `countLevel: false` leaves out `simulate` (InpOLH: FC's kernel, but no
 * exact count-level law). Building a method is O(1); its costs are those of its
 * family functions.
 */
export function methodConstructor<
  Plan extends BaselinePlanBase,
  Report,
  Options extends BaselineOptions,
  Synopsis extends BaselineSynopsis,
>(
  family: MethodFamily<Plan, Report, Options, Synopsis>,
  id: Plan["method"],
  label: string,
  countLevel = true,
): MethodConstructor<Plan, Report, Synopsis, Options> {
  const { Aggregator, simulate, expectedSse, reportLaw } = family;
  return (options = {} as Options) => {
    const answers = checkAnswers(id, options.answers);
    return {
      id,
      label,
      plan: (parameters) => family.plan(id, parameters, options),
      report: family.report,
      createAggregator: (plan) => new Aggregator(plan),
      estimate: (plan, aggregator) => family.estimate(plan, aggregator, answers, options),
      simulatePerUser: (plan, data, rng) => family.simulatePerUser(plan, data, rng, options),
      ...(countLevel && simulate !== undefined ? { simulate } : {}),
      ...(expectedSse !== undefined ? { expectedSse } : {}),
      ...(reportLaw !== undefined ? { reportLaw } : {}),
    };
  };
}
