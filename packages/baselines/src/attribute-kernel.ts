import { createGrr, type FrequencyOracle } from "@calm-ldp/frequency-oracles";
import {
  encodeRecord,
  encodeStore,
  type ProtocolParameters,
  perObject,
  type RecordStore,
  type ReportAggregator,
} from "@calm-ldp/marginal-algebra";
import type { Rng } from "@calm-ldp/random";
import type { AttributePlan, AttributeReport, EmAnswer, EmOptions, EmSynopsis } from "./api.js";
import { type ChannelAxis, runEm } from "./em.js";
import { answerTable, type EncodingRuntime, encodedQuery, encodingRuntime } from "./encoding.js";
import { fail, MalformedReportError, tooLarge } from "./errors.js";
import {
  checkPlanInputs,
  checkQuery,
  checkRecord,
  checkStore,
  limitsOf,
  planBase,
  planCardinalities,
} from "./params.js";
import { checkAggregator, checkMergeable } from "./plan-fingerprint.js";
import type { MethodFamily } from "./protocols/family.js";
import { sharedPerDomain } from "./shared-per-domain.js";

/** @internal Run-time facts of an attribute plan. */
interface AttributeRuntime {
  /** Cardinalities of the source schema. */
  readonly cardinalities: readonly number[];
  /** Cardinality of each reported attribute (EM: the source's; InpEM: 2 per bit). */
  readonly reported: readonly number[];
  /** GRR with eps / (reported attributes) for each reported attribute. */
  readonly oracles: readonly FrequencyOracle<number>[];
  readonly encoding: EncodingRuntime | null;
}

const attributeRuntime: (plan: AttributePlan) => AttributeRuntime = /* @__PURE__ */ perObject(
  (plan: AttributePlan): AttributeRuntime => {
    const cardinalities = planCardinalities(plan);
    const encoding = plan.method === "inpem" ? encodingRuntime(plan.schema) : null;
    const reported = encoding === null ? cardinalities : new Array<number>(encoding.totalBits).fill(2);
    const oracles = sharedPerDomain(reported, (c) => createGrr({ eps: plan.epsPerAttribute, domain: c }));
    return { cardinalities, reported, oracles, encoding };
  },
);

/**
 * Plan an attribute-wise method (budget splitting, ../../../docs/algorithms.md#comparison-methods): every
 * user reports every attribute separately through GRR (binary RR for binary
 * attributes) with eps / d; InpEM (Cormode et al. §4.4, after Fanti et al.)
 * binary-encodes first and reports every bit with eps / (total bits); EM (CALM
 * §3.6, LoPub style) reports the attributes as they are. O(d).
 */
export function planAttributes(
  method: AttributePlan["method"],
  parameters: ProtocolParameters,
  options: EmOptions = {},
): AttributePlan {
  const { cardinalities } = checkPlanInputs(method, parameters, options);
  const bits = method === "inpem" ? encodingRuntime(parameters.schema).bits : null;
  const reported = bits === null ? cardinalities.length : bits.reduce((s, b) => s + b, 0);
  return {
    ...planBase(method, parameters, bits),
    epsPerAttribute: parameters.eps / reported,
  };
}

/** Client: every attribute (InpEM: every bit of the encoding) through its GRR with eps / count. O(d). */
export function attributeReport(plan: AttributePlan, record: ArrayLike<number>, rng: Rng): AttributeReport {
  const runtime = attributeRuntime(plan);
  checkRecord(`${plan.method}.report`, record, runtime.cardinalities);
  const values =
    runtime.encoding === null ? Array.from(record) : encodeRecord(runtime.encoding.encoding, record);
  return values.map((v, a) => runtime.oracles[a]!.perturb(v, rng));
}

/**
 * Server side of EM / InpEM: the reports themselves, column by column (EM needs
 * the joint distribution of reported values over any query's attributes, so the
 * aggregate is the report table; it merges by concatenation). Memory: n bytes per
 * reported attribute (cardinalities <= 256).
 */
export class AttributeAggregator implements ReportAggregator<AttributeReport> {
  readonly plan: AttributePlan;
  #columns: (Uint8Array | Uint16Array | Uint32Array)[];
  #size = 0;

  constructor(plan: AttributePlan) {
    this.plan = plan;
    this.#columns = attributeRuntime(plan).reported.map((c) => makeColumn(c, 1024));
  }

  get reports(): number {
    return this.#size;
  }

  /** The reported values of attribute a (the first `reports` entries). */
  column(a: number): ArrayLike<number> {
    return this.#columns[a]!.subarray(0, this.#size);
  }

  /** Validate and store one report. O(d). */
  add(report: AttributeReport): void {
    const reported = attributeRuntime(this.plan).reported;
    if (!Array.isArray(report) || report.length !== reported.length) {
      throw new MalformedReportError(
        `${this.plan.method}.add: a report has ${reported.length} values (got ${Array.isArray(report) ? report.length : String(report)}); nothing was counted`,
        "value",
      );
    }
    for (let a = 0; a < reported.length; a++) {
      const v = report[a]!;
      if (!Number.isInteger(v) || v < 0 || v >= reported[a]!) {
        throw new MalformedReportError(
          `${this.plan.method}.add: value ${a} must be an integer in [0, ${reported[a]}) (got ${v}); nothing was counted`,
          "value",
        );
      }
    }
    this.#reserve(1);
    for (let a = 0; a < reported.length; a++) this.#columns[a]![this.#size] = report[a]!;
    this.#size++;
  }

  /** @internal Append `count` reports given column by column (produced by the kernel, so valid). */
  addColumns(columns: readonly ArrayLike<number>[], count: number): void {
    this.#reserve(count);
    columns.forEach((column, a) => {
      const target = this.#columns[a]!;
      for (let r = 0; r < count; r++) target[this.#size + r] = column[r]!;
    });
    this.#size += count;
  }

  /** Append another aggregator's reports (same plan). O(its reports * d). */
  merge(other: ReportAggregator<AttributeReport>): void {
    const theirs = checkMergeable(`${this.plan.method}.merge`, this, other, AttributeAggregator);
    const columns = theirs.#columns.map((column) => column.subarray(0, theirs.#size));
    this.addColumns(columns, theirs.#size);
  }

  #reserve(extra: number): void {
    const need = this.#size + extra;
    if (need <= this.#columns[0]!.length) return;
    const capacity = Math.max(need, 2 * this.#columns[0]!.length);
    const reported = attributeRuntime(this.plan).reported;
    this.#columns = this.#columns.map((column, a) => {
      const grown = makeColumn(reported[a]!, capacity);
      grown.set(column.subarray(0, this.#size));
      return grown;
    });
  }
}

function makeColumn(cardinality: number, length: number): Uint8Array | Uint16Array | Uint32Array {
  if (cardinality <= 256) return new Uint8Array(length);
  if (cardinality <= 65536) return new Uint16Array(length);
  return new Uint32Array(length);
}

/** Per-user path: each reported attribute's column through its GRR's batched client kernel. O(n d). */
export function attributePerUser(plan: AttributePlan, store: RecordStore, rng: Rng): AttributeAggregator {
  const runtime = attributeRuntime(plan);
  checkStore(`${plan.method}.simulatePerUser`, store, runtime.cardinalities);
  const source = runtime.encoding === null ? store : encodeStore(runtime.encoding.encoding, store);
  const columns = source.columns.map((column, a) => runtime.oracles[a]!.perturbBatch(column, rng).words);
  const aggregator = new AttributeAggregator(plan);
  aggregator.addColumns(columns, store.size);
  return aggregator;
}

/**
 * Server: a synopsis answering each query by EM over the reported combinations
 * of its attributes (InpEM: of its bits, with the codes that encode no value
 * held at 0, then decoded). Refuses a query whose table exceeds `maxCells`.
 * Cost per query: O(n t) to count the combinations, O(t |V|) per EM iteration.
 */
export function attributeEstimate(
  plan: AttributePlan,
  aggregator: ReportAggregator<AttributeReport>,
  options: EmOptions = {},
): EmSynopsis {
  const where = `${plan.method}.estimate`;
  const reports = checkAggregator(where, plan, aggregator, AttributeAggregator);
  const runtime = attributeRuntime(plan);
  const { maxCells } = limitsOf(options);
  const tolerance = options.tolerance ?? 1e-5;
  const maxIterations = options.maxIterations ?? 10_000;
  const initialization = options.initialization ?? (plan.method === "em" ? "inclusion-exclusion" : "uniform");
  const initialMix = options.initialMix ?? 0.01;
  if (!(tolerance > 0)) fail(where, "tolerance must be a number > 0", tolerance);
  if (!Number.isInteger(maxIterations) || maxIterations < 1)
    fail(where, "maxIterations must be an integer >= 1", maxIterations);
  if (initialization !== "uniform" && initialization !== "inclusion-exclusion")
    fail(where, 'initialization must be "uniform" or "inclusion-exclusion"', initialization);
  if (!(initialMix >= 0 && initialMix <= 1)) fail(where, "initialMix must be in [0, 1]", initialMix);
  const d = runtime.cardinalities.length;
  const answer = (attributes: readonly number[]): EmAnswer => {
    const q = checkQuery(`${plan.method}.answer`, attributes, d);
    const columns = runtime.encoding === null ? q : encodedQuery(runtime.encoding, q);
    const radices = columns.map((a) => runtime.reported[a]!);
    const size = radices.reduce((product, c) => product * c, 1);
    if (size > maxCells) tooLarge(`${plan.method}.answer`, "the query table", size, maxCells, "cells");
    const observed = new Float64Array(size);
    const n = reports.reports;
    const index = new Uint32Array(n);
    columns.forEach((a, i) => {
      const column = reports.column(a);
      const c = radices[i]!;
      for (let r = 0; r < n; r++) index[r] = index[r]! * c + column[r]!;
    });
    for (let r = 0; r < n; r++) observed[index[r]!]!++;
    const axes: ChannelAxis[] = columns.map((a) => {
      const oracle = runtime.oracles[a]!;
      return { cardinality: runtime.reported[a]!, p: oracle.p, q: oracle.q };
    });
    const support = runtime.encoding === null ? undefined : validCodes(runtime.encoding, q);
    const { cells, diagnostics } = runEm(observed, axes, {
      tolerance,
      maxIterations,
      initialization,
      initialMix,
      ...(support ? { support } : {}),
    });
    return { table: answerTable(runtime.encoding, runtime.cardinalities, q, cells, true), diagnostics };
  };
  return { plan, answer, query: (attributes) => answer(attributes).table };
}

/** @internal 1 for each cell of the bit table over the query's bits whose codes all encode a value. */
function validCodes(encoding: EncodingRuntime, query: readonly number[]): Uint8Array {
  const radices = query.map((a) => 2 ** encoding.bits[a]!);
  const cards = query.map((a) => encoding.cardinalities[a]!);
  const size = radices.reduce((product, c) => product * c, 1);
  const out = new Uint8Array(size);
  const digits = new Array<number>(query.length).fill(0);
  for (let u = 0; u < size; u++) {
    let valid = 1;
    for (let i = 0; i < query.length; i++) if (digits[i]! >= cards[i]!) valid = 0;
    out[u] = valid;
    for (let i = query.length - 1; i >= 0; i--) {
      digits[i]!++;
      if (digits[i]! < radices[i]!) break;
      digits[i] = 0;
    }
  }
  return out;
}

/** The kernel functions of EM and InpEM (their answers are distributions already: `answers` is checked, not used). */
export const ATTRIBUTE_KERNELS: MethodFamily<AttributePlan, AttributeReport, EmOptions, EmSynopsis> = {
  plan: planAttributes,
  report: attributeReport,
  Aggregator: AttributeAggregator,
  estimate: (plan, aggregator, _answers, options) => attributeEstimate(plan, aggregator, options),
  simulatePerUser: attributePerUser,
};
