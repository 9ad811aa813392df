import type { ProtocolPlan, ReportAggregator } from "@calm-ldp/marginal-algebra";
import { checkMergeable } from "./plan-fingerprint.js";

/**
 * @internal The server state of the Hadamard-style methods (InpHT/FT, MargHT,
 * InpHTCMS): per entry (a coefficient, or a sketch cell), the number of reports and
 * how many of them had sign -1. Subclasses validate their own report shape in `add`
 * and call `countSigned`; packed kernel output, simulated tallies and merges are
 * shared. Counts are additive, so merging adds the arrays. O(1) per report,
 * O(entries) per merge.
 */
export abstract class SignedTallyAggregator<Plan extends ProtocolPlan, Report>
  implements ReportAggregator<Report>
{
  readonly plan: Plan;
  /** Reports per entry. */
  readonly counts: Uint32Array;
  /** Reports of sign -1 per entry. */
  readonly minus: Uint32Array;
  #reports = 0;

  constructor(plan: Plan, entries: number) {
    this.plan = plan;
    this.counts = new Uint32Array(entries);
    this.minus = new Uint32Array(entries);
  }

  get reports(): number {
    return this.#reports;
  }

  /** Validate one report and count it (through `countSigned`); counts nothing if it is malformed. */
  abstract add(report: Report): void;

  /** Count one validated report for `entry` with `sign`. O(1). */
  protected countSigned(entry: number, sign: 1 | -1): void {
    this.counts[entry]!++;
    if (sign === -1) this.minus[entry]!++;
    this.#reports++;
  }

  /** @internal Count `count` packed reports `entry * 2 + bit` (produced by a kernel, so valid). O(count). */
  addPacked(packed: Uint32Array, count: number): void {
    const counts = this.counts;
    const minus = this.minus;
    for (let i = 0; i < count; i++) {
      const word = packed[i]!;
      const e = word >>> 1;
      counts[e]!++;
      minus[e]! += word & 1;
    }
    this.#reports += count;
  }

  /** @internal Add simulated tallies. O(entries). */
  addTallies(counts: ArrayLike<number>, minus: ArrayLike<number>, reports: number): void {
    for (let e = 0; e < this.counts.length; e++) {
      this.counts[e]! += counts[e]!;
      this.minus[e]! += minus[e]!;
    }
    this.#reports += reports;
  }

  /** Fold another aggregator of the same method and plan into this one. O(entries). */
  merge(other: ReportAggregator<Report>): void {
    const type = this.constructor as abstract new (...args: never[]) => this;
    const theirs = checkMergeable(`${this.plan.method}.merge`, this, other, type);
    this.addTallies(theirs.counts, theirs.minus, theirs.reports);
  }
}
