import type { MarginalSynopsis, MarginalTable } from "@calm-ldp/marginal-algebra";
import type { IntervalOptions, IntervalTable } from "./analytic-interval.js";
import type { BaselineSynopsis, MethodId } from "./api.js";
import { checkQuery } from "./params.js";

/** Methods whose `query(attributes, { interval })` returns confidence intervals (README: which and why). */
export const INTERVAL_METHODS: readonly MethodId[] = Object.freeze([
  "calm",
  "inpht",
  "ft",
  "marght",
  "am",
  "margrr",
  "margps",
  "fc",
  "inprr",
  "inpps",
  "inpolh",
]);

/** The synopsis of an analytic-interval method: `query` also answers with an interval per cell. */
export interface IntervalSynopsis extends BaselineSynopsis {
  query(attributes: readonly number[]): MarginalTable;
  /** With an interval: the answer with `lower`, `upper`, `standardError` per cell (see the method's interval function). */
  query(attributes: readonly number[], options: IntervalOptions): IntervalTable;
}

/**
 * @internal The `query` of an {@link IntervalSynopsis}: the attributes checked
 * (distinct, in [0, d), errors naming `<method>.query`) and passed ascending, with
 * the caller's interval options, to `answer`, which returns an
 * {@link IntervalTable} when there are options. O(t log t) + the answer's cost.
 */
export function intervalQuery(
  method: string,
  d: number,
  answer: (q: readonly number[], options: IntervalOptions | undefined) => MarginalTable | IntervalTable,
): IntervalSynopsis["query"] {
  function query(attributes: readonly number[]): MarginalTable;
  function query(attributes: readonly number[], options: IntervalOptions): IntervalTable;
  function query(attributes: readonly number[], options?: IntervalOptions): MarginalTable | IntervalTable {
    return answer(checkQuery(`${method}.query`, attributes, d), options);
  }
  return query;
}

/**
 * `synopsis.query(attributes, options)` with intervals for a method of
 * {@link INTERVAL_METHODS}; `undefined` for the others (their `query` takes no
 * options). Cost: the method's interval query.
 */
export function queryInterval(
  id: string,
  synopsis: MarginalSynopsis,
  attributes: readonly number[],
  options: IntervalOptions,
): IntervalTable | undefined {
  if (!(INTERVAL_METHODS as readonly string[]).includes(id)) return undefined;
  const query = synopsis.query as unknown as (a: readonly number[], o: IntervalOptions) => IntervalTable;
  return query.call(synopsis, attributes, options);
}
