import type { FrequencyOracle, OracleAggregator } from "@calm-ldp/frequency-oracles";
import type { ProtocolPlan, ReportAggregator } from "@calm-ldp/marginal-algebra";
import type { Rng } from "@calm-ldp/random";
import { malformed } from "./errors.js";
import { isIndex } from "./params.js";
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
    if (!isIndex(part, 0, this.parts.length)) {
      malformed(
        `${this.plan.method}.add`,
        `report.${key} must be an integer in [0, ${this.parts.length}) (got ${String(part)})`,
      );
    }
    this.parts[part]!.add(report.report);
  }

  /**
   * @internal The per-user path: each part's users' values through its oracle's
   * batched client kernel, part by part (empty parts draw nothing). O(users * report cost).
   */
  perturbParts(batches: PartBatches, oracleOf: (part: number) => FrequencyOracle, rng: Rng): void {
    const { offsets, values } = batches;
    for (let j = 0; j < this.parts.length; j++) {
      const batch = values.subarray(offsets[j]!, offsets[j + 1]!);
      if (batch.length > 0) this.parts[j]!.addBatch(oracleOf(j).perturbBatch(batch, rng));
    }
  }

  /**
   * @internal The count-level path, exact: each part's true counts over its
   * `domainOf(part)` cells, then its oracle's joint count-level draw, part by part
   * (empty parts draw nothing). O(users + sum of part domains).
   */
  simulateParts(
    batches: PartBatches,
    oracleOf: (part: number) => FrequencyOracle,
    domainOf: (part: number) => number,
    rng: Rng,
  ): void {
    const { offsets, values } = batches;
    for (let j = 0; j < this.parts.length; j++) {
      const size = offsets[j + 1]! - offsets[j]!;
      if (size === 0) continue;
      const counts = new Float64Array(domainOf(j));
      for (let r = offsets[j]!; r < offsets[j + 1]!; r++) counts[values[r]!]!++;
      this.parts[j]!.addCounts(oracleOf(j).simulateCounts(counts, rng), size);
    }
  }

  /** Fold another aggregator of the same method and plan into this one. O(sum of part domains). */
  merge(other: ReportAggregator<Report>): void {
    const type = this.constructor as abstract new (...args: never[]) => this;
    const theirs = checkMergeable(`${this.plan.method}.merge`, this, other, type);
    for (let j = 0; j < this.parts.length; j++) this.parts[j]!.merge(theirs.parts[j]!);
  }
}

/** @internal Users' values grouped by part: part j's are `values[offsets[j] .. offsets[j + 1])`. */
export interface PartBatches {
  readonly offsets: Uint32Array;
  readonly values: Uint32Array;
}

/**
 * @internal Group users by part (a counting sort, users in order within a part):
 * `parts[r]` is user r's part in [0, partCount), `valueIn(r, part)` the value she
 * reports in it. O(users + partCount).
 */
export function sortByPart(
  parts: Uint32Array,
  partCount: number,
  valueIn: (user: number, part: number) => number,
): PartBatches {
  const offsets = new Uint32Array(partCount + 1);
  for (let r = 0; r < parts.length; r++) offsets[parts[r]! + 1]!++;
  for (let j = 0; j < partCount; j++) offsets[j + 1]! += offsets[j]!;
  const cursor = offsets.slice(0, partCount);
  const values = new Uint32Array(parts.length);
  for (let r = 0; r < parts.length; r++) {
    const j = parts[r]!;
    values[cursor[j]!++] = valueIn(r, j);
  }
  return { offsets, values };
}
