import {
  createSue,
  type FrequencyOracle,
  localHash,
  type OracleAggregator,
} from "@calm-ldp/frequency-oracles";
import { fwht, parity32 } from "@calm-ldp/hadamard";
import type {
  MarginalTable,
  ProtocolParameters,
  RecordStore,
  ReportAggregator,
} from "@calm-ldp/marginal-algebra";
import { perObject } from "@calm-ldp/marginal-algebra";
import {
  type BernoulliSampler,
  createBernoulli,
  deriveSeed,
  partition,
  type Rng,
  uniformInt,
} from "@calm-ldp/random";
import { finishAnswer } from "./answers.js";
import type {
  AnswerPostProcessing,
  BaselineSynopsis,
  HadamardSketchReport,
  SketchOptions,
  SketchPlan,
  SketchReport,
} from "./api.js";
import { answerTable, type EncodingRuntime, encodingRuntime, recordMask, storeMasks } from "./encoding.js";
import { fail, malformed, tooLarge } from "./errors.js";
import { marginalizeMixed } from "./marginalize.js";
import { checkPlanInputs, checkQuery, checkRecord, checkStore, isIndex, planBase } from "./params.js";
import { type PartBatches, PartitionedAggregator, sortByPart } from "./partitioned-aggregator.js";
import { checkEstimateInputs } from "./plan-fingerprint.js";
import type { MethodFamily } from "./protocols/family.js";
import { SignedTallyAggregator } from "./signed-tally.js";
import { randomizedBit, rejectionOf, uniformFromWord, WordBuffer } from "./words.js";

/** @internal Run-time facts of a sketch plan. */
interface SketchRuntime {
  readonly encoding: EncodingRuntime;
  /** InpCMS: SUE over the width. */
  readonly sue: FrequencyOracle<Uint32Array>;
  /** InpHTCMS: RR keep probability e^eps / (1 + e^eps). */
  readonly p: number;
  readonly keep: BernoulliSampler;
  /** InpHTCMS: entries (row, coefficient 1..w-1) = rows * (w - 1). */
  readonly entries: number;
  readonly reject: number;
  readonly words: WordBuffer;
}

const sketchRuntime: (plan: SketchPlan) => SketchRuntime = /* @__PURE__ */ perObject(
  (plan: SketchPlan): SketchRuntime => {
    const e = Math.exp(plan.eps);
    const p = e / (1 + e);
    const entries = plan.rows * (plan.width - 1);
    return {
      encoding: encodingRuntime(plan.schema),
      sue: createSue({ eps: plan.eps, domain: plan.width }),
      p,
      keep: createBernoulli(p),
      entries,
      reject: rejectionOf(entries),
      words: new WordBuffer(),
    };
  },
);

/**
 * Plan a count-mean sketch over the full binary domain (Cormode et al. appendix
 * B.2, after Apple's deployment): `rows` public hash functions
 * `h_j(x) = localHash(seed_j, x, width)` (frequency-oracles' seeded hash family),
 * seeds derived from `options.seed`. InpCMS: the user reports her row's hashed
 * value through SUE over the width (each bit with eps/2, as Apple's ±1 vector
 * flipped with 1/(1 + e^{eps/2})); InpHTCMS: one Hadamard coefficient of the
 * one-hot hashed value through binary RR with eps (width a power of two).
 * Defaults g = 5, w = 256 (Cormode et al.). Refuses a full domain above `maxCells`.
 * O(rows).
 */
export function planSketch(
  method: SketchPlan["method"],
  parameters: ProtocolParameters,
  options: SketchOptions = {},
): SketchPlan {
  const { where, maxCells } = checkPlanInputs(method, parameters, options);
  const bits = encodingRuntime(parameters.schema).bits;
  const totalBits = bits.reduce((s, b) => s + b, 0);
  const domain = 2 ** totalBits;
  if (domain > maxCells) tooLarge(where, "the full binary domain", domain, maxCells, "cells");
  const rows = options.rows ?? 5;
  const width = options.width ?? 256;
  const seed = options.seed ?? 0;
  if (!Number.isInteger(rows) || rows < 1 || rows > 1024)
    fail(where, "rows must be an integer in [1, 1024]", rows);
  if (!Number.isInteger(width) || width < 2 || width > 2 ** 16)
    fail(where, "width must be an integer in [2, 65536]", width);
  if (method === "inphtcms" && (width & (width - 1)) !== 0)
    fail(where, "width must be a power of two for the Hadamard sketch", width);
  if (!Number.isSafeInteger(seed) || seed < 0) fail(where, "seed must be a safe integer >= 0", seed);
  return {
    ...planBase(method, parameters, bits),
    domain,
    rows,
    width,
    hashSeeds: Array.from({ length: rows }, (_, j) => deriveSeed(seed, j) >>> 0),
  };
}

/** @internal The full binary index (bit word) of every record of a checked store. O(n d). */
function storeIndices(plan: SketchPlan, store: RecordStore, where: string): Uint32Array {
  const { encoding } = sketchRuntime(plan);
  checkStore(where, store, encoding.cardinalities);
  return storeMasks(encoding, store);
}

function recordIndex(runtime: SketchRuntime, record: ArrayLike<number>): number {
  const mask = new Uint32Array(1);
  recordMask(runtime.encoding, record, mask, 0);
  return mask[0]!;
}

/** Client of InpCMS: a uniform row j, the hashed value h_j(x) through SUE over the width. O(d + w). */
export function cmsReport(plan: SketchPlan, record: ArrayLike<number>, rng: Rng): SketchReport {
  const runtime = sketchRuntime(plan);
  checkRecord(`${plan.method}.report`, record, runtime.encoding.cardinalities);
  const row = uniformInt(rng, plan.rows);
  const y = localHash(plan.hashSeeds[row]!, recordIndex(runtime, record), plan.width);
  return { row, report: runtime.sue.perturb(y, rng) };
}

/**
 * Client of InpHTCMS: a uniform (row j, coefficient l in 1..w-1) in one exact
 * word, the sign `(-1)^{|l ∧ h_j(x)|}` kept with probability e^eps / (1 + e^eps)
 * (the batched kernel on one record). O(d).
 */
export function hcmsReport(plan: SketchPlan, record: ArrayLike<number>, rng: Rng): HadamardSketchReport {
  const runtime = sketchRuntime(plan);
  checkRecord(`${plan.method}.report`, record, runtime.encoding.cardinalities);
  const out = new Uint32Array(1);
  hcmsKernel(plan, runtime, Uint32Array.of(recordIndex(runtime, record)), 0, 1, out, rng);
  const e = out[0]! >>> 1;
  return {
    row: Math.floor(e / (plan.width - 1)),
    coefficient: (e % (plan.width - 1)) + 1,
    sign: (out[0]! & 1) === 1 ? -1 : 1,
  };
}

/** @internal InpHTCMS kernel: packed `entry * 2 + bit` per user, two words each. */
function hcmsKernel(
  plan: SketchPlan,
  runtime: SketchRuntime,
  indices: Uint32Array,
  start: number,
  end: number,
  out: Uint32Array,
  rng: Rng,
): void {
  const count = end - start;
  const words = runtime.words.draw(rng, 2 * count);
  const span = plan.width - 1;
  const { keep, reject, entries } = runtime;
  for (let i = 0; i < count; i++) {
    const e = uniformFromWord(words[2 * i]!, entries, reject, rng);
    const row = Math.floor(e / span);
    const l = e - row * span + 1;
    const y = localHash(plan.hashSeeds[row]!, indices[start + i]!, plan.width);
    out[i] = e * 2 + randomizedBit(keep, words[2 * i + 1]!, parity32(l & y), rng);
  }
}

/** Server side of InpCMS: one SUE aggregator per row (O(w) per report, O(rows w) to merge). */
export class CmsAggregator extends PartitionedAggregator<SketchPlan, SketchReport> {
  constructor(plan: SketchPlan) {
    const sue = sketchRuntime(plan).sue;
    super(
      plan,
      "row",
      Array.from({ length: plan.rows }, () => sue.createAggregator()),
    );
  }

  /** Per row, its SUE aggregator (the parts). */
  get rows(): readonly OracleAggregator<Uint32Array>[] {
    return this.parts;
  }
}

/** Server side of InpHTCMS: per (row, coefficient) entry, the reports and the reports of sign -1 (O(1) per report). */
export class HcmsAggregator extends SignedTallyAggregator<SketchPlan, HadamardSketchReport> {
  constructor(plan: SketchPlan) {
    super(plan, plan.rows * (plan.width - 1));
  }

  add(report: HadamardSketchReport): void {
    const { rows, width } = this.plan;
    const row = report?.row;
    const l = report?.coefficient;
    const sign = report?.sign;
    if (!isIndex(row, 0, rows) || !isIndex(l, 1, width) || (sign !== 1 && sign !== -1)) {
      malformed(
        `${this.plan.method}.add`,
        `a report is { row in [0, ${rows}), coefficient in [1, ${width}), sign: 1 | -1 } (got ${JSON.stringify(report)})`,
      );
    }
    this.countSigned(row * (width - 1) + l - 1, sign);
  }
}

/** @internal Each user's row (uniform, as the client draws it) and her hashed value in it, grouped by row. O(n). */
function rowsOf(plan: SketchPlan, store: RecordStore, rng: Rng, where: string): PartBatches {
  const indices = storeIndices(plan, store, where);
  return sortByPart(partition(rng, indices.length, plan.rows), plan.rows, (r, j) =>
    localHash(plan.hashSeeds[j]!, indices[r]!, plan.width),
  );
}

/** Per-user path of InpCMS: rows drawn per user, then SUE's batched client kernel per row. O(n w). */
export function cmsPerUser(plan: SketchPlan, store: RecordStore, rng: Rng): CmsAggregator {
  const batches = rowsOf(plan, store, rng, `${plan.method}.simulatePerUser`);
  const { sue } = sketchRuntime(plan);
  const aggregator = new CmsAggregator(plan);
  aggregator.perturbParts(batches, () => sue, rng);
  return aggregator;
}

/** Count-level simulation of InpCMS (exact: rows per user, then SUE's joint count-level law per row). O(n + rows w). */
export function cmsSimulate(plan: SketchPlan, store: RecordStore, rng: Rng): CmsAggregator {
  const batches = rowsOf(plan, store, rng, `${plan.method}.simulate`);
  const { sue } = sketchRuntime(plan);
  const aggregator = new CmsAggregator(plan);
  aggregator.simulateParts(
    batches,
    () => sue,
    () => plan.width,
    rng,
  );
  return aggregator;
}

/** Per-user path of InpHTCMS: the client kernel on every record (two words per user). O(n d). */
export function hcmsPerUser(plan: SketchPlan, store: RecordStore, rng: Rng): HcmsAggregator {
  const runtime = sketchRuntime(plan);
  const indices = storeIndices(plan, store, `${plan.method}.simulatePerUser`);
  const aggregator = new HcmsAggregator(plan);
  aggregator.countKernel(store.size, (start, end, out) =>
    hcmsKernel(plan, runtime, indices, start, end, out, rng),
  );
  return aggregator;
}

/**
 * Count-level simulation of InpHTCMS, exact: each user's (row, coefficient) is
 * drawn as the client does and the true signs tallied; the reported -1 signs per
 * entry are `Binomial(minus, p) + Binomial(plus, 1 - p)`
 * (`SignedTallyAggregator.simulateSigns`). O(n + entries).
 */
export function hcmsSimulate(plan: SketchPlan, store: RecordStore, rng: Rng): HcmsAggregator {
  const runtime = sketchRuntime(plan);
  const indices = storeIndices(plan, store, `${plan.method}.simulate`);
  const span = plan.width - 1;
  const aggregator = new HcmsAggregator(plan);
  aggregator.simulateSigns(indices.length, rng, runtime.words, runtime.reject, runtime.p, (user, e) => {
    const row = Math.floor(e / span);
    const y = localHash(plan.hashSeeds[row]!, indices[user]!, plan.width);
    return parity32((e - row * span + 1) & y);
  });
  return aggregator;
}

/** The synopsis of a sketch method. */
export interface SketchSynopsis extends BaselineSynopsis {
  readonly plan: SketchPlan;
  /** Per row, the estimated fraction of that row's users in each bucket (unbiased given the row's users). */
  readonly buckets: readonly Float64Array[];
  /** The count-mean estimate of the full binary table (fractions). */
  readonly full: Float64Array;
}

/**
 * Count-mean estimate over the full domain from per-row bucket estimates F_j:
 * `f(x) = w / (w - 1) * (mean_j F_j[h_j(x)] - 1 / w)` (Apple's count-mean
 * sketch debiasing, unbiased for ideal hashing), rows without reports left out;
 * then marginalised per query and decoded. O(rows D) once, O(D) per query.
 */
function sketchSynopsis(
  plan: SketchPlan,
  buckets: (Float64Array | null)[],
  answers: AnswerPostProcessing,
): SketchSynopsis {
  const runtime = sketchRuntime(plan);
  const { width, domain } = plan;
  const used = buckets.map((b, j) => (b === null ? -1 : j)).filter((j) => j >= 0);
  const full = new Float64Array(domain);
  if (used.length === 0) full.fill(1 / domain);
  else {
    const scale = width / (width - 1) / used.length;
    for (const j of used) {
      const row = buckets[j]!;
      const seed = plan.hashSeeds[j]!;
      for (let x = 0; x < domain; x++) full[x]! += row[localHash(seed, x, width)]! * scale;
    }
    const offset = 1 / (width - 1);
    for (let x = 0; x < domain; x++) full[x]! -= offset;
  }
  const encoding = runtime.encoding;
  const radices = encoding.bits.map((b) => 2 ** b);
  const query = (attributes: readonly number[]): MarginalTable => {
    const q = checkQuery(`${plan.method}.query`, attributes, radices.length);
    const size = q.reduce((product, a) => product * radices[a]!, 1);
    const cells = marginalizeMixed(full, radices, q, new Float64Array(size));
    return finishAnswer(answerTable(encoding, encoding.cardinalities, q, cells), answers);
  };
  return { plan, buckets: buckets.map((b) => b ?? new Float64Array(width)), full, query };
}

/** Server of InpCMS: per row the SUE estimate of the bucket fractions, then the count-mean estimate. O(rows (w + D)). */
export function cmsEstimate(
  plan: SketchPlan,
  aggregator: ReportAggregator<SketchReport>,
  answers: AnswerPostProcessing = "none",
): SketchSynopsis {
  const [{ rows }, post] = checkEstimateInputs(plan, aggregator, CmsAggregator, answers);
  return sketchSynopsis(
    plan,
    rows.map((row) => (row.reports > 0 ? row.estimate() : null)),
    post,
  );
}

/**
 * Server of InpHTCMS: per row the coefficient estimates `theta_l = (plus - minus)
 * / (count (2p - 1))`, theta_0 = 1, the bucket fractions by the inverse FWHT
 * (hadamard's `fwht`, scaling "inverse"), then the count-mean estimate.
 * O(rows (w log w + D)).
 */
export function hcmsEstimate(
  plan: SketchPlan,
  aggregator: ReportAggregator<HadamardSketchReport>,
  answers: AnswerPostProcessing = "none",
): SketchSynopsis {
  const [tallies, post] = checkEstimateInputs(plan, aggregator, HcmsAggregator, answers);
  const { p } = sketchRuntime(plan);
  const span = plan.width - 1;
  const buckets = Array.from({ length: plan.rows }, (_, j) => {
    let reports = 0;
    const theta = new Float64Array(plan.width);
    theta[0] = 1;
    for (let l = 1; l <= span; l++) {
      const e = j * span + l - 1;
      reports += tallies.counts[e]!;
      theta[l] = tallies.meanSign(e) / (2 * p - 1);
    }
    return reports > 0 ? fwht(theta, { scaling: "inverse" }) : null;
  });
  return sketchSynopsis(plan, buckets, post);
}

/** The kernel functions of InpCMS. */
export const CMS_KERNELS: MethodFamily<SketchPlan, SketchReport, SketchOptions, SketchSynopsis> = {
  plan: planSketch,
  report: cmsReport,
  Aggregator: CmsAggregator,
  estimate: cmsEstimate,
  simulate: cmsSimulate,
  simulatePerUser: cmsPerUser,
};

/** The kernel functions of InpHTCMS. */
export const HCMS_KERNELS: MethodFamily<SketchPlan, HadamardSketchReport, SketchOptions, SketchSynopsis> = {
  plan: planSketch,
  report: hcmsReport,
  Aggregator: HcmsAggregator,
  estimate: hcmsEstimate,
  simulate: hcmsSimulate,
  simulatePerUser: hcmsPerUser,
};
