import type { OracleAggregator } from "@calm-ldp/frequency-oracles";
import type { ProtocolPlan, ReportAggregator } from "@calm-ldp/marginal-algebra";
import { MalformedReportError } from "./errors.js";
import { checkMergeable } from "./plan-fingerprint.js";

/**
 * @internal The server state of a method whose users are split into parts (AM and
 * MargRR/MargPS: one part per group of attributes; InpCMS: one per sketch row),
 * each part reporting through its own frequency oracle: one oracle aggregator per
 * part. A report is `{ [key]: part, report }`; `add` checks the part index before
 * the part's aggregator checks the report, so a malformed report counts nothing.
 * Merging folds part by part (same plan only). O(report) per report, O(sum of
 * part domains) per merge.
 */
export class PartitionedAggregator<Plan extends ProtocolPlan, Report extends { readonly report: unknown }>
  implements ReportAggregator<Report>
{
  readonly plan: Plan;
  /** Per part, its oracle aggregator. */
  readonly parts: readonly OracleAggregator<Report["report"]>[];
  readonly #key: string;

  constructor(plan: Plan, key: string, parts: readonly OracleAggregator<Report["report"]>[]) {
    this.plan = plan;
    this.#key = key;
    this.parts = parts;
  }

  get reports(): number {
    let total = 0;
    for (const part of this.parts) total += part.reports;
    return total;
  }

  /** Validate and count one report. O(report). */
  add(report: Report): void {
    const key = this.#key;
    const part = (report as unknown as Record<string, unknown> | null | undefined)?.[key];
    if (typeof part !== "number" || !Number.isInteger(part) || part < 0 || part >= this.parts.length) {
      throw new MalformedReportError(
        `${this.plan.method}.add: report.${key} must be an integer in [0, ${this.parts.length}) (got ${String(part)}); nothing was counted`,
        "value",
      );
    }
    this.parts[part]!.add(report.report);
  }

  /** Fold another aggregator of the same method and plan into this one. O(sum of part domains). */
  merge(other: ReportAggregator<Report>): void {
    const type = this.constructor as abstract new (...args: never[]) => this;
    const theirs = checkMergeable(`${this.plan.method}.merge`, this, other, type);
    for (let j = 0; j < this.parts.length; j++) this.parts[j]!.merge(theirs.parts[j]!);
  }
}
