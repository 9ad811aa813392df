import {
  adaptiveMechanism,
  createOracle,
  type FrequencyOracle,
  type OracleAggregator,
} from "@calm-ldp/frequency-oracles";
import type { ProtocolParameters, RecordStore, ReportAggregator } from "@calm-ldp/marginal-algebra";
import { perObject } from "@calm-ldp/marginal-algebra";
import type { Rng } from "@calm-ldp/random";
import { linearAnswer } from "./analytic-interval.js";
import { finishAnswer } from "./answers.js";
import type {
  AnswerPostProcessing,
  BaselineOptions,
  FullDomainPlan,
  FullDomainReport,
  MethodReportLaw,
  PlanOracle,
} from "./api.js";
import { answerTable, digitRadices, type EncodingRuntime, encodingRuntime, storeMasks } from "./encoding.js";
import { CannotRunError, tooLarge } from "./errors.js";
import { groupInterval } from "./group-interval.js";
import { type IntervalSynopsis, intervalQuery } from "./intervals.js";
import { marginalizeMixed } from "./marginalize.js";
import { checkPlanInputs, checkRecord, checkStore, limitsOf, planBase, planCardinalities } from "./params.js";
import { checkEstimateInputs, checkMergeable } from "./plan-fingerprint.js";
import type { MethodFamily } from "./protocols/family.js";

/** @internal What a full-domain plan needs at run time, built once per plan object. */
export interface FullDomainRuntime {
  readonly oracle: FrequencyOracle;
  /** Radix of each attribute's digit in the full index (FC: c_i; Inp*: 2^bits_i). */
  readonly radices: readonly number[];
  /** The binary encoding (Inp* methods), or null (FC). */
  readonly encoding: EncodingRuntime | null;
  readonly cardinalities: readonly number[];
}

/** @internal */
export const fullDomainRuntime: (plan: FullDomainPlan) => FullDomainRuntime = /* @__PURE__ */ perObject(
  (plan: FullDomainPlan): FullDomainRuntime => {
    const cardinalities = planCardinalities(plan);
    const encoding = plan.bits === null ? null : encodingRuntime(plan.schema);
    return {
      oracle: createOracle(plan.oracle, { eps: plan.eps, domain: plan.domain }),
      radices: digitRadices(cardinalities, encoding),
      encoding,
      cardinalities,
    };
  },
);

/**
 * Plan a full-domain method (../../../docs/algorithms.md#comparison-methods): FC reports the full record
 * (domain `prod c_i`) through the adaptive FO (GRR when `D - 2 < 3 e^eps`, else
 * OUE); InpRR (SUE), InpPS (GRR) and InpOLH (OLH) report the record's binary
 * code over `2^(total bits)`. Refuses (`MethodTooLargeError`) when the full table
 * exceeds `maxCells` (FC at d = 32 binary needs 2^32 cells), and InpOLH when its
 * server's `n * D` hash evaluations exceed `maxWork`. O(d).
 */
export function planFullDomain(
  method: FullDomainPlan["method"],
  parameters: ProtocolParameters,
  options: BaselineOptions = {},
): FullDomainPlan {
  const { where, cardinalities, maxCells, maxWork } = checkPlanInputs(method, parameters, options);
  const encoded = method !== "fc";
  const bits = encoded ? encodingRuntime(parameters.schema).bits : null;
  const domain = bits
    ? 2 ** bits.reduce((s, b) => s + b, 0)
    : cardinalities.reduce((product, c) => product * c, 1);
  if (domain > maxCells) tooLarge(where, "the full contingency table", domain, maxCells, "cells");
  let oracle: PlanOracle;
  if (method === "fc") oracle = adaptiveMechanism(parameters.eps, domain);
  else if (method === "inprr") oracle = "sue";
  else if (method === "inpps") oracle = "grr";
  else oracle = "olh";
  if (method === "inpolh" && parameters.n * domain > maxWork) {
    tooLarge(where, "the OLH server (n * D hash evaluations)", parameters.n * domain, maxWork, "operations");
  }
  return {
    ...planBase(method, parameters, bits),
    domain,
    oracle,
  };
}

/** @internal The full-domain index of one validated record (mixed radix over `radices`). O(d). */
function recordIndex(runtime: FullDomainRuntime, record: ArrayLike<number>): number {
  let index = 0;
  for (let a = 0; a < runtime.radices.length; a++) index = index * runtime.radices[a]! + record[a]!;
  return index;
}

/** @internal The full-domain index of every record of a store. O(n d). */
export function storeIndices(runtime: FullDomainRuntime, store: RecordStore): Uint32Array {
  if (runtime.encoding !== null) return storeMasks(runtime.encoding, store);
  const n = store.size;
  const out = new Uint32Array(n);
  for (let a = 0; a < runtime.radices.length; a++) {
    const column = store.columns[a]!;
    const c = runtime.radices[a]!;
    for (let r = 0; r < n; r++) out[r] = out[r]! * c + column[r]!;
  }
  return out;
}

/**
 * Client of a full-domain method: the record's full index (FC: mixed radix of
 * its values; Inp*: its binary code) perturbed by the plan's oracle with the
 * whole eps. O(d + the oracle's cost: O(1) GRR/OLH, O(D) unary).
 */
export function fullDomainReport(
  plan: FullDomainPlan,
  record: ArrayLike<number>,
  rng: Rng,
): FullDomainReport {
  const runtime = fullDomainRuntime(plan);
  checkRecord(`${plan.method}.report`, record, runtime.cardinalities);
  return runtime.oracle.perturb(recordIndex(runtime, record), rng) as FullDomainReport;
}

/**
 * The declared report law of a full-domain method: one part, the plan's oracle on
 * the record's full index (what {@link fullDomainReport} sends). O(1).
 */
export function fullDomainReportLaw(plan: FullDomainPlan): MethodReportLaw<FullDomainReport> {
  const runtime = fullDomainRuntime(plan);
  return {
    partWeights: [1],
    oracle: () => runtime.oracle,
    input: (_part, record) => recordIndex(runtime, record),
    split: (report) => ({ part: 0, report }),
  };
}

/** Server side of a full-domain method: the oracle's aggregator (support counts over the full domain; O(D) memory). */
export class FullDomainAggregator implements ReportAggregator<FullDomainReport> {
  readonly plan: FullDomainPlan;
  /** The frequency-oracle aggregator over the full domain. */
  readonly counts: OracleAggregator;

  constructor(plan: FullDomainPlan) {
    this.plan = plan;
    this.counts = fullDomainRuntime(plan).oracle.createAggregator();
  }

  get reports(): number {
    return this.counts.reports;
  }

  /** Validate and count one report (MalformedReportError, nothing counted, when invalid). O(report). */
  add(report: FullDomainReport): void {
    this.counts.add(report);
  }

  /** Fold another aggregator of the same plan into this one. O(D). */
  merge(other: ReportAggregator<FullDomainReport>): void {
    const theirs = checkMergeable(`${this.plan.method}.merge`, this, other, FullDomainAggregator);
    this.counts.merge(theirs.counts);
  }
}

/**
 * Per-user path: every record's full index through the oracle's batched client
 * kernel (the kernel `perturb` runs), in chunks of at most 2^22 report words.
 * Refuses when the client work (`n * D / 2` random words for the unary oracles)
 * exceeds `maxWork`. O(n * report cost + server cost).
 */
export function fullDomainPerUser(
  plan: FullDomainPlan,
  store: RecordStore,
  rng: Rng,
  options: BaselineOptions = {},
): FullDomainAggregator {
  const where = `${plan.method}.simulatePerUser`;
  const runtime = fullDomainRuntime(plan);
  checkStore(where, store, runtime.cardinalities);
  const { maxWork } = limitsOf(options);
  const perUser = plan.oracle === "sue" || plan.oracle === "oue" ? plan.domain / 2 : 3;
  if (store.size * perUser > maxWork)
    tooLarge(where, "perturbing every user", store.size * perUser, maxWork, "operations");
  const indices = storeIndices(runtime, store);
  const aggregator = new FullDomainAggregator(plan);
  const chunk = Math.max(1, Math.floor(2 ** 22 / runtime.oracle.stride));
  for (let start = 0; start < indices.length; start += chunk) {
    const values = indices.subarray(start, Math.min(indices.length, start + chunk));
    aggregator.counts.addBatch(runtime.oracle.perturbBatch(values, rng));
  }
  return aggregator;
}

/**
 * Count-level simulation (exact for GRR, SUE and OUE, whose support counts have a
 * joint law that `simulateCounts` draws): the full table of true counts, then the
 * oracle's count-level draw. O(n d + D).
 */
export function fullDomainSimulate(plan: FullDomainPlan, store: RecordStore, rng: Rng): FullDomainAggregator {
  const runtime = fullDomainRuntime(plan);
  checkStore(`${plan.method}.simulate`, store, runtime.cardinalities);
  const indices = storeIndices(runtime, store);
  const counts = new Float64Array(plan.domain);
  for (let r = 0; r < indices.length; r++) counts[indices[r]!]!++;
  const aggregator = new FullDomainAggregator(plan);
  if (store.size > 0) aggregator.counts.addCounts(runtime.oracle.simulateCounts(counts, rng), store.size);
  return aggregator;
}

/**
 * The synopsis of a full-domain method: the estimated full table, marginalised
 * per query; with an interval, analytic (`groupInterval` with the whole
 * population as one group), refused before any report.
 */
export interface FullDomainSynopsis extends IntervalSynopsis {
  readonly plan: FullDomainPlan;
  /** Unbiased estimate of the full table (fractions; may be negative); uniform when no report came. */
  readonly full: Float64Array;
}

/**
 * Server: the unbiased full-table estimate `(C(x)/N - q) / (p - q)`; a query is
 * answered by summing it (FC: over the source attributes; Inp*: over the query's
 * bits, then decoded, codes of no value dropped). O(D) to estimate, O(D) per query.
 */
export function fullDomainEstimate(
  plan: FullDomainPlan,
  aggregator: ReportAggregator<FullDomainReport>,
  answers: AnswerPostProcessing = "none",
): FullDomainSynopsis {
  const [{ counts }, post] = checkEstimateInputs(plan, aggregator, FullDomainAggregator, answers);
  const runtime = fullDomainRuntime(plan);
  const full = counts.reports > 0 ? counts.estimate() : new Float64Array(plan.domain).fill(1 / plan.domain);
  const d = runtime.cardinalities.length;
  const query = intervalQuery(plan.method, d, (q, options) => {
    const size = q.reduce((product, a) => product * runtime.radices[a]!, 1);
    const linear = (cells: Float64Array) => answerTable(runtime.encoding, runtime.cardinalities, q, cells);
    if (options !== undefined) {
      if (counts.reports === 0)
        throw new CannotRunError(
          `${plan.method}.query: no reports yet, so the noise has no variance estimate and no interval is sound`,
        );
      // One group holding every user: the oracle's covariance minus the population's own
      // sampling term (the truth is this population's table). Linear, so analytic.
      return groupInterval(
        [
          {
            cells: full,
            radices: runtime.radices,
            positions: q,
            reports: counts.reports,
            oracle: runtime.oracle,
          },
        ],
        size,
        counts.reports,
        linearAnswer(plan.method, options, linear, post),
      );
    }
    const cells = marginalizeMixed(full, runtime.radices, q, new Float64Array(size));
    return finishAnswer(linear(cells), post);
  });
  return { plan, full, query };
}

/** The kernel functions of the full-domain methods (FC, InpRR, InpPS, InpOLH); `protocols/full-domain.ts` adds the expected SSE. */
export const FULL_DOMAIN_KERNELS: MethodFamily<
  FullDomainPlan,
  FullDomainReport,
  BaselineOptions,
  FullDomainSynopsis
> = {
  plan: planFullDomain,
  report: fullDomainReport,
  Aggregator: FullDomainAggregator,
  estimate: fullDomainEstimate,
  simulate: fullDomainSimulate,
  simulatePerUser: fullDomainPerUser,
  reportLaw: fullDomainReportLaw,
};
