import type { OracleAggregator, ReportBatch } from "@calm-ldp/frequency-oracles";
import type { ReportAggregator } from "@calm-ldp/marginal-algebra";
import type { CalmPlan, CalmReport } from "./api.js";
import { InvalidParameterError, MalformedReportError } from "./errors.js";
import { planRuntime } from "./runtime.js";

/**
 * Server side of CALM: one frequency-oracle aggregator per view. Reports are
 * validated before anything is counted; aggregators of the same plan merge
 * (counts are additive), so collection shards freely.
 */
export class CalmAggregator implements ReportAggregator<CalmReport> {
  readonly plan: CalmPlan;
  /** Per view, the oracle aggregator holding its support counts. */
  readonly views: readonly OracleAggregator[];

  constructor(plan: CalmPlan) {
    this.plan = plan;
    this.views = planRuntime(plan).oracles.map((oracle) => oracle.createAggregator());
  }

  /** Total reports counted over all views. */
  get reports(): number {
    let total = 0;
    for (const view of this.views) total += view.reports;
    return total;
  }

  /** Reports counted per view. */
  reportsPerView(): number[] {
    return this.views.map((view) => view.reports);
  }

  /** Count one report; throws `MalformedReportError` (counting nothing) for an unknown view or an invalid oracle report. */
  add(report: CalmReport): void {
    const view = this.viewOf(report);
    this.views[view]!.add(report.report);
  }

  /** Count one wire-encoded oracle report for `view` (see the oracle's `encode`). */
  addEncoded(view: number, bytes: Uint8Array): void {
    this.views[this.checkView(view)]!.addEncoded(bytes);
  }

  /** Count a packed batch of oracle reports of one view (validated as a whole first). */
  addBatch(view: number, batch: ReportBatch): void {
    this.views[this.checkView(view)]!.addBatch(batch);
  }

  /** Fold another aggregator of the same plan into this one. */
  merge(other: ReportAggregator<CalmReport>): void {
    if (!(other instanceof CalmAggregator))
      throw new InvalidParameterError("CalmAggregator.merge: can only merge another CalmAggregator");
    if (planRuntime(other.plan).fingerprint !== planRuntime(this.plan).fingerprint) {
      throw new InvalidParameterError(
        "CalmAggregator.merge: the other aggregator belongs to a different plan",
      );
    }
    for (let i = 0; i < this.views.length; i++) this.views[i]!.merge(other.views[i]!);
  }

  private viewOf(report: CalmReport): number {
    if (typeof report !== "object" || report === null)
      throw new MalformedReportError(
        `CalmAggregator.add: a report must be an object {view, report} (got ${String(report)})`,
        "type",
      );
    return this.checkView(report.view);
  }

  private checkView(view: unknown): number {
    if (typeof view !== "number" || !Number.isInteger(view) || view < 0 || view >= this.views.length) {
      throw new MalformedReportError(
        `CalmAggregator: unknown view ${JSON.stringify(view)}; the plan has views 0..${this.views.length - 1}`,
        "view",
      );
    }
    return view;
  }
}

/**
 * @internal Throw unless `aggregator` counts reports of `plan`: the same plan
 * object, or one with the same fingerprint (method, version, eps, schema
 * cardinalities, and every view's attributes, oracle and cells). O(m) once per plan.
 */
export function checkAggregatorPlan(where: string, plan: CalmPlan, aggregator: CalmAggregator): void {
  if (!(aggregator instanceof CalmAggregator))
    throw new InvalidParameterError(`${where}: the aggregator must come from createCalmAggregator`);
  if (aggregator.plan !== plan && planRuntime(aggregator.plan).fingerprint !== planRuntime(plan).fingerprint)
    throw new InvalidParameterError(`${where}: the aggregator belongs to a different plan`);
}

/** An empty aggregator for `plan`. O(m + sum of view cells). */
export function createCalmAggregator(plan: CalmPlan): CalmAggregator {
  return new CalmAggregator(plan);
}
