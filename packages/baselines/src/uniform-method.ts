import {
  type ProtocolParameters,
  type RecordStore,
  type ReportAggregator,
  uniformTable,
} from "@calm-ldp/marginal-algebra";
import type { BaselineSynopsis, UniPlan } from "./api.js";
import { MalformedReportError } from "./errors.js";
import {
  checkParameters,
  checkQuery,
  checkRecord,
  checkStore,
  planBase,
  planCardinalities,
} from "./params.js";
import { checkAggregator, checkMergeable } from "./plan-fingerprint.js";

/** Plan of Uni (CALM §5 baseline): nothing to choose. O(d). */
export function planUniform(parameters: ProtocolParameters): UniPlan {
  checkParameters("uni.plan", parameters);
  return {
    ...planBase("uni", parameters, null),
  };
}

/** Client of Uni: the record is checked and nothing is reported (`null`). O(d). */
export function uniformReport(plan: UniPlan, record: ArrayLike<number>): null {
  checkRecord("uni.report", record, planCardinalities(plan));
  return null;
}

/** Server side of Uni: counts the (empty) reports (O(1) each). */
export class UniformAggregator implements ReportAggregator<null> {
  readonly plan: UniPlan;
  #reports = 0;

  constructor(plan: UniPlan) {
    this.plan = plan;
  }

  get reports(): number {
    return this.#reports;
  }

  add(report: null): void {
    if (report !== null)
      throw new MalformedReportError(
        `uni.add: a Uni report is null (got ${String(report)}); nothing was counted`,
        "value",
      );
    this.#reports++;
  }

  /** @internal */
  addReports(count: number): void {
    this.#reports += count;
  }

  merge(other: ReportAggregator<null>): void {
    this.#reports += checkMergeable("uni.merge", this, other, UniformAggregator).reports;
  }
}

/** Population of Uni (count level and per user alike: nothing is perturbed). O(d). */
export function uniformPopulation(plan: UniPlan, store: RecordStore): UniformAggregator {
  checkStore("uni.simulate", store, planCardinalities(plan));
  const aggregator = new UniformAggregator(plan);
  aggregator.addReports(store.size);
  return aggregator;
}

/** Server of Uni: every query is the uniform table (the baseline any useful method must beat). O(cells). */
export function uniformEstimate(plan: UniPlan, aggregator: ReportAggregator<null>): BaselineSynopsis {
  checkAggregator("uni.estimate", plan, aggregator, UniformAggregator);
  const cardinalities = planCardinalities(plan);
  return {
    plan,
    query(attributes) {
      const q = checkQuery("uni.query", attributes, cardinalities.length);
      return uniformTable(
        q,
        q.map((a) => cardinalities[a]!),
      );
    },
  };
}
