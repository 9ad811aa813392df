import { marginalFromCoefficients, parity32 } from "@calm-ldp/hadamard";
import type {
  MarginalTable,
  ProtocolParameters,
  RecordStore,
  ReportAggregator,
} from "@calm-ldp/marginal-algebra";
import { perObject } from "@calm-ldp/marginal-algebra";
import { type BernoulliSampler, binomialCoefficient, createBernoulli, type Rng } from "@calm-ldp/random";
import {
  type IntervalAnswer,
  type IntervalOptions,
  type IntervalTable,
  linearAnswer,
} from "./analytic-interval.js";
import { finishAnswer } from "./answers.js";
import type { AnswerPostProcessing, BaselineOptions, HadamardPlan, HadamardReport } from "./api.js";
import { answerTable, type EncodingRuntime, encodingRuntime, recordMask, storeMasks } from "./encoding.js";
import { malformed, tooLarge } from "./errors.js";
import { type GroupIndex, groupIndex } from "./group-index.js";
import {
  type CoefficientEntries,
  inputCoefficientCount,
  inputEntries,
  marginalEntries,
} from "./hadamard-coefficient-entries.js";
import { coefficientInterval, coefficientVarianceOf, hadamardInterval } from "./hadamard-interval.js";
import { type IntervalSynopsis, intervalQuery } from "./intervals.js";
import { meanOfMarginals } from "./marginalize.js";
import {
  checkKWay,
  checkPlanInputs,
  checkRecord,
  checkStore,
  checkUsersPerPart,
  isIndex,
  planBase,
} from "./params.js";
import { checkEstimateInputs } from "./plan-fingerprint.js";
import type { MethodFamily } from "./protocols/family.js";
import { SignedTallyAggregator } from "./signed-tally.js";
import { randomizedBit, rejectionOf, uniformFromWord, WordBuffer } from "./words.js";

/** @internal Run-time facts of a Hadamard plan, built once per plan object. */
export interface HadamardRuntime {
  readonly encoding: EncodingRuntime;
  readonly entries: CoefficientEntries;
  /** InpHT/FT: local coefficient -> entry for a query. */
  readonly lookup?: (query: readonly number[]) => Int32Array;
  /** MargHT: the groups and the first entry of each. */
  readonly groups?: GroupIndex;
  readonly groupOffsets?: Float64Array;
  readonly keep: BernoulliSampler;
  readonly reject: number;
  readonly words: WordBuffer;
}

/** @internal */
export const hadamardRuntime: (plan: HadamardPlan) => HadamardRuntime = /* @__PURE__ */ perObject(
  (plan: HadamardPlan): HadamardRuntime => {
    let runtime: HadamardRuntime;
    const encoding = encodingRuntime(plan.schema);
    const common = {
      encoding,
      keep: createBernoulli(plan.p),
      reject: rejectionOf(plan.entries),
      words: new WordBuffer(),
    };
    if (plan.method === "marght") {
      const groups = groupIndex(encoding.bits.length, plan.k);
      const entries = marginalEntries(encoding, groups);
      runtime = { ...common, entries, groups, groupOffsets: entries.groupOffsets };
    } else {
      const entries = inputEntries(encoding, plan.k);
      runtime = { ...common, entries, lookup: entries.lookup };
    }
    return runtime;
  },
);

/**
 * Number of MargHT entries: `sum over k-subsets S of (2^{bits of S} - 1)`, i.e.
 * `C(d, k) (2^k - 1)` for binary data, by the elementary symmetric polynomial of
 * `2^{bits_a}`. O(d k).
 */
export function marginalCoefficientCount(bits: readonly number[], k: number): number {
  const e = new Array<number>(k + 1).fill(0);
  e[0] = 1;
  for (const b of bits) for (let w = k; w >= 1; w--) e[w]! += e[w - 1]! * 2 ** b;
  return e[k]! - binomialCoefficient(bits.length, k);
}

/**
 * Plan a Hadamard method (../../../docs/algorithms.md#hadamard-methods): InpHT (and FT, the CALM paper's name
 * for it) draws one coefficient from the non-empty bit sets touching 1..k
 * attributes (binary data: `T = {alpha : 1 <= |alpha| <= k}`; the empty
 * coefficient is known to be 1, so no user is spent on it); MargHT draws one of
 * the C(d, k) marginals and one of its 2^k - 1 non-empty coefficients. The sign
 * goes through binary RR with p = e^eps / (1 + e^eps). Non-binary attributes are
 * binary-encoded. Refuses when the entries exceed `maxCells`, or (MargHT) when
 * there are fewer users than marginals. O(d k).
 */
export function planHadamard(
  method: HadamardPlan["method"],
  parameters: ProtocolParameters,
  options: BaselineOptions = {},
): HadamardPlan {
  const { where, maxCells } = checkPlanInputs(method, parameters, options);
  const bits = encodingRuntime(parameters.schema).bits;
  const d = bits.length;
  const { n, k, eps } = parameters;
  let groups = 0;
  let entries: number;
  if (method === "marght") {
    groups = checkUsersPerPart(where, "marginals", d, k, n);
    entries = marginalCoefficientCount(bits, k);
  } else {
    entries = inputCoefficientCount(bits, k);
  }
  if (entries > maxCells)
    tooLarge(where, "the Hadamard coefficient index", entries, maxCells, "coefficients");
  const e = Math.exp(eps);
  return {
    ...planBase(method, parameters, bits),
    entries,
    groups,
    p: e / (1 + e),
  };
}

/**
 * @internal The client kernel: for records `records[start..end)` (bit words,
 * `stride` per record), draw an entry uniformly (one word, exact) and keep the
 * sign `(-1)^{|j ∧ alpha|}` with probability p (one word against an integer
 * threshold, ties refined exactly), and write `entry * 2 + bit` (bit 1 = sign -1)
 * into `out[0 .. end - start)`. O(stride) per user.
 */
function perturbRange(
  runtime: HadamardRuntime,
  records: Uint32Array,
  start: number,
  end: number,
  out: Uint32Array,
  rng: Rng,
): void {
  const { masks, size, stride } = runtime.entries;
  const { keep, reject } = runtime;
  const count = end - start;
  const words = runtime.words.draw(rng, 2 * count);
  for (let i = 0; i < count; i++) {
    const e = uniformFromWord(words[2 * i]!, size, reject, rng);
    let x = 0;
    const r = (start + i) * stride;
    const m = e * stride;
    for (let w = 0; w < stride; w++) x ^= records[r + w]! & masks[m + w]!;
    out[i] = e * 2 + randomizedBit(keep, words[2 * i + 1]!, parity32(x), rng);
  }
}

/**
 * Client: one record's bits, one uniformly drawn coefficient entry, its sign
 * through binary RR (the batched kernel on one record). O(d + stride).
 */
export function hadamardReport(plan: HadamardPlan, record: ArrayLike<number>, rng: Rng): HadamardReport {
  const runtime = hadamardRuntime(plan);
  checkRecord(`${plan.method}.report`, record, runtime.encoding.cardinalities);
  const mask = new Uint32Array(runtime.entries.stride);
  recordMask(runtime.encoding, record, mask, 0);
  const out = new Uint32Array(1);
  perturbRange(runtime, mask, 0, 1, out, rng);
  return { coefficient: out[0]! >>> 1, sign: (out[0]! & 1) === 1 ? -1 : 1 };
}

/** Server side of a Hadamard method: per entry, the reports and the reports of sign -1 (O(entries) memory, O(1) per report). */
export class HadamardAggregator extends SignedTallyAggregator<HadamardPlan, HadamardReport> {
  constructor(plan: HadamardPlan) {
    super(plan, plan.entries);
  }

  /** Validate and count one report. O(1). */
  add(report: HadamardReport): void {
    const e = report?.coefficient;
    const sign = report?.sign;
    if (!isIndex(e, 0, this.counts.length) || (sign !== 1 && sign !== -1)) {
      malformed(
        `${this.plan.method}.add`,
        `a report is { coefficient: integer in [0, ${this.counts.length}), sign: 1 | -1 } (got ${JSON.stringify(report)})`,
      );
    }
    this.countSigned(e, sign);
  }
}

/**
 * Per-user path: every record's bits through the client kernel (2 random words
 * per user), in chunks of 2^16 users. O(n (d + stride)).
 */
export function hadamardPerUser(plan: HadamardPlan, store: RecordStore, rng: Rng): HadamardAggregator {
  const runtime = hadamardRuntime(plan);
  checkStore(`${plan.method}.simulatePerUser`, store, runtime.encoding.cardinalities);
  const records = storeMasks(runtime.encoding, store);
  const aggregator = new HadamardAggregator(plan);
  aggregator.countKernel(store.size, (start, end, out) =>
    perturbRange(runtime, records, start, end, out, rng),
  );
  return aggregator;
}

/**
 * Count-level simulation, exact: each user's entry is drawn (one word per user,
 * as the client does), the true signs tallied per entry, then the reported
 * number of -1 signs of entry e is `Binomial(minus_e, p) + Binomial(plus_e, 1 - p)`,
 * the law of independent RR reports (`SignedTallyAggregator.simulateSigns`).
 * O(n stride + entries).
 */
export function hadamardSimulate(plan: HadamardPlan, store: RecordStore, rng: Rng): HadamardAggregator {
  const runtime = hadamardRuntime(plan);
  checkStore(`${plan.method}.simulate`, store, runtime.encoding.cardinalities);
  const records = storeMasks(runtime.encoding, store);
  const { masks, stride } = runtime.entries;
  const aggregator = new HadamardAggregator(plan);
  aggregator.simulateSigns(store.size, rng, runtime.words, runtime.reject, plan.p, (user, e) => {
    let x = 0;
    const r = user * stride;
    for (let w = 0; w < stride; w++) x ^= records[r + w]! & masks[e * stride + w]!;
    return parity32(x);
  });
  return aggregator;
}

/** The synopsis of a Hadamard method (intervals: InpHT/FT `hadamardInterval`; MargHT the same formula on its marginals' mean coefficients). */
export interface HadamardSynopsis extends IntervalSynopsis {
  readonly plan: HadamardPlan;
  /** Unbiased coefficient estimate per entry, `(mean of reported signs) / (2p - 1)`; 0 for an entry with no report. */
  readonly theta: Float64Array;
}

/**
 * Server: `theta_e = (plus_e - minus_e) / (count_e (2p - 1))` for every entry,
 * then a query over bits beta is `M_beta[gamma] = 2^-k sum_{alpha ⊆ beta}
 * (-1)^{|gamma ∧ alpha|} theta_alpha` with theta_empty = 1 (../../../docs/algorithms.md#hadamard-methods;
 * hadamard's `marginalFromCoefficients`), decoded onto the source attributes
 * (codes of no value dropped; unbiased cells). MargHT answers a k-way query from
 * its marginal's own coefficients (Cormode et al.: "does not share information
 * between marginals") and a smaller query by the mean of the projections of the
 * marginals containing it. O(entries) to estimate; O(k2 2^k2) per query.
 */
export function hadamardEstimate(
  plan: HadamardPlan,
  aggregator: ReportAggregator<HadamardReport>,
  answers: AnswerPostProcessing = "none",
): HadamardSynopsis {
  const [tallies, post] = checkEstimateInputs(plan, aggregator, HadamardAggregator, answers);
  const runtime = hadamardRuntime(plan);
  const theta = new Float64Array(plan.entries);
  const scale = 1 / (2 * plan.p - 1);
  for (let e = 0; e < plan.entries; e++) theta[e] = tallies.meanSign(e) * scale;
  const encoding = runtime.encoding;
  const d = encoding.bits.length;
  const linear = (q: readonly number[], cells: Float64Array): MarginalTable =>
    answerTable(encoding, encoding.cardinalities, q, cells);
  const finish = (q: readonly number[], cells: Float64Array): MarginalTable =>
    finishAnswer(linear(q, cells), post);
  const intervalAnswer = (q: readonly number[], options: IntervalOptions): IntervalAnswer =>
    linearAnswer(plan.method, options, (cells) => linear(q, cells), post);
  const query = intervalQuery(plan.method, d, (q, options) => {
    if (options !== undefined) {
      if (runtime.lookup === undefined) return margHtInterval(q, options);
      return hadamardInterval(plan, theta, tallies.counts, runtime.lookup(q), intervalAnswer(q, options));
    }
    if (runtime.lookup !== undefined) {
      const lookup = runtime.lookup(q);
      const local = new Float64Array(lookup.length);
      local[0] = 1;
      for (let m = 1; m < lookup.length; m++) local[m] = theta[lookup[m]!]!;
      return finish(q, marginalFromCoefficients(local, local));
    }
    checkKWay(plan.method, plan.k, q);
    const groups = runtime.groups!;
    const used = groups.containing(q);
    const radixOf = (a: number) => 2 ** encoding.bits[a]!;
    const size = q.reduce((product, a) => product * radixOf(a), 1);
    const mean = meanOfMarginals(used.length, size, (i) => {
      const g = used[i]!;
      const group = groups.groups[g]!;
      const first = runtime.groupOffsets![g]!;
      const local = new Float64Array(runtime.groupOffsets![g + 1]! - first + 1);
      local[0] = 1;
      for (let m = 1; m < local.length; m++) local[m] = theta[first + m - 1]!;
      return {
        cells: marginalFromCoefficients(local, local),
        radices: group.map(radixOf),
        positions: q.map((a) => group.indexOf(a)),
      };
    });
    return finish(q, mean);
  });
  /**
   * MargHT's interval: the answer is the mean over the u marginals containing the
   * query of their coefficients restricted to the query's bits, so it is the
   * Hadamard cell formula on mean coefficients whose independent errors have
   * variance sum_g Var(theta_g,alpha) / u^2 (different users per entry). O(u 2^k_b).
   */
  function margHtInterval(q: readonly number[], options: IntervalOptions): IntervalTable {
    checkKWay(plan.method, plan.k, q);
    const groups = runtime.groups!;
    const used = groups.containing(q);
    // Bit layout of a local index: attributes in order, the first most significant, bits[a] bits each.
    const shiftsOf = (attributes: readonly number[]) => {
      const shift = new Map<number, number>();
      let total = 0;
      for (let i = attributes.length - 1; i >= 0; i--) {
        shift.set(attributes[i]!, total);
        total += encoding.bits[attributes[i]!]!;
      }
      return { shift, total };
    };
    const query = shiftsOf(q);
    const size = 2 ** query.total;
    const local = new Float64Array(size);
    local[0] = 1;
    const variance = new Float64Array(size);
    let n = 0;
    for (const c of tallies.counts) n += c;
    const u = used.length;
    for (const g of used) {
      const group = shiftsOf(groups.groups[g]!);
      const first = runtime.groupOffsets![g]!;
      for (let m = 1; m < size; m++) {
        let mask = 0;
        for (const a of q) {
          const part = (m >>> query.shift.get(a)!) & ((1 << encoding.bits[a]!) - 1);
          mask |= part << group.shift.get(a)!;
        }
        const e = first + mask - 1;
        local[m]! += theta[e]! / u;
        variance[m]! += coefficientVarianceOf(plan, theta[e]!, tallies.counts[e]!) / (u * u);
      }
    }
    return coefficientInterval(local, variance, n, intervalAnswer(q, options));
  }
  return { plan, theta, query };
}

/** The kernel functions of the Hadamard methods (InpHT, FT, MargHT); `protocols/hadamard.ts` adds the expected SSE. */
export const HADAMARD_KERNELS: MethodFamily<HadamardPlan, HadamardReport, BaselineOptions, HadamardSynopsis> =
  {
    plan: planHadamard,
    report: hadamardReport,
    Aggregator: HadamardAggregator,
    estimate: hadamardEstimate,
    simulate: hadamardSimulate,
    simulatePerUser: hadamardPerUser,
  };
