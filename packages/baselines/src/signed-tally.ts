import type { ProtocolPlan, ReportAggregator } from "@calm-ldp/marginal-algebra";
import { binomial, type Rng } from "@calm-ldp/random";
import { checkMergeable } from "./plan-fingerprint.js";
import { uniformFromWord, type WordBuffer } from "./words.js";

/** @internal Users per chunk of the per-user and count-level loops (bounds the scratch buffers). */
const CHUNK = 1 << 16;

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

  /** The mean reported sign of `entry`, `(plus - minus) / count`, or 0 when it has no report. O(1). */
  meanSign(entry: number): number {
    const count = this.counts[entry]!;
    return count > 0 ? (count - 2 * this.minus[entry]!) / count : 0;
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

  /**
   * @internal The per-user path: run a client kernel over users [0, users) in
   * chunks of 2^16, each writing one packed report `entry * 2 + bit` per user
   * into `out`, and count them. O(users) plus the kernel.
   */
  countKernel(users: number, kernel: (start: number, end: number, out: Uint32Array) => void): void {
    const out = new Uint32Array(Math.min(CHUNK, users));
    for (let start = 0; start < users; start += CHUNK) {
      const end = Math.min(users, start + CHUNK);
      kernel(start, end, out);
      this.addPacked(out, end - start);
    }
  }

  /**
   * @internal The count-level path, exact: every user's entry is drawn as the
   * client draws it (one word, uniform over the entries by `reject`), her true
   * sign tallied (`trueBit(user, entry)`: 1 for -1), then the reported -1 signs
   * of entry e are `Binomial(minus_e, p) + Binomial(plus_e, 1 - p)`, the law of
   * independent randomized response with keep probability p. O(users + entries).
   */
  simulateSigns(
    users: number,
    rng: Rng,
    words: WordBuffer,
    reject: number,
    p: number,
    trueBit: (user: number, entry: number) => number,
  ): void {
    const entries = this.counts.length;
    const counts = new Uint32Array(entries);
    const trueMinus = new Uint32Array(entries);
    for (let start = 0; start < users; start += CHUNK) {
      const end = Math.min(users, start + CHUNK);
      const drawn = words.draw(rng, end - start);
      for (let i = 0; i < end - start; i++) {
        const e = uniformFromWord(drawn[i]!, entries, reject, rng);
        counts[e]!++;
        trueMinus[e]! += trueBit(start + i, e);
      }
    }
    const minus = new Float64Array(entries);
    for (let e = 0; e < entries; e++) {
      const m = trueMinus[e]!;
      const plus = counts[e]! - m;
      minus[e] = (m > 0 ? binomial(rng, m, p) : 0) + (plus > 0 ? binomial(rng, plus, 1 - p) : 0);
    }
    this.addTallies(counts, minus, users);
  }

  /** Fold another aggregator of the same method and plan into this one. O(entries). */
  merge(other: ReportAggregator<Report>): void {
    const type = this.constructor as abstract new (...args: never[]) => this;
    const theirs = checkMergeable(`${this.plan.method}.merge`, this, other, type);
    this.addTallies(theirs.counts, theirs.minus, theirs.reports);
  }
}
