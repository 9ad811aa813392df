import { coefficientsFromMarginal } from "@calm-ldp/hadamard";
import { type MarginalTable, type ProtocolPlan, validateTable } from "@calm-ldp/marginal-algebra";
import type { FullDomainPlan, GroupPlan, HadamardPlan } from "./api.js";
import { digitRadices, encodedQuery, encodeTable, encodingRuntime } from "./encoding.js";
import { fail, UnsupportedQueryError } from "./errors.js";
import { fullDomainRuntime } from "./full-domain-kernel.js";
import { groupRuntime } from "./group-kernel.js";
import { checkQuery } from "./params.js";

/**
 * Variance (times N (p - q)^2) of the estimate of a sum of `size` cells of a
 * support oracle when a fraction `f` of the N users hold one of them
 * (../../../docs/algorithms.md#frequency-oracles; the sum's estimate is `(C(S)/N - size q) / (p - q)`):
 * - "exclusive" (GRR: a report supports exactly one value): a user in the set
 *   supports it with `P1 = p + (size - 1) q`, one outside with `P0 = size q`, so
 *   `f P1 (1 - P1) + (1 - f) P0 (1 - P0)`;
 * - "independent" (OUE, SUE, and OLH under pairwise-independent hashing: the
 *   supports of distinct values are uncorrelated), `f p (1 - p) + (size - f) q (1 - q)`.
 * O(1).
 */
export function supportSumVariance(
  kind: "exclusive" | "independent",
  p: number,
  q: number,
  size: number,
  f: number,
): number {
  if (kind === "independent") return f * p * (1 - p) + (size - f) * q * (1 - q);
  const inside = p + (size - 1) * q;
  const outside = size * q;
  return f * inside * (1 - inside) + (1 - f) * outside * (1 - outside);
}

/** `E[1/N]` for N ~ Binomial(n, 1/groups), second order: `(groups/n) (1 + (groups - 1)/n)`. O(1). */
export function expectedInverseGroupSize(n: number, groups: number): number {
  return (groups / n) * (1 + (groups - 1) / n);
}

function kindOf(oracle: string): "exclusive" | "independent" {
  return oracle === "grr" ? "exclusive" : "independent";
}

/**
 * The query of an expectedSse call, checked (distinct attributes of the plan's
 * schema, ascending); with `k`, at most k attributes (`UnsupportedQueryError`,
 * as the method's own query). O(t log t).
 */
function sseQuery(plan: ProtocolPlan, attributes: readonly number[], k?: number): number[] {
  const q = checkQuery("expectedSse", attributes, plan.schema.attributes.length);
  if (k !== undefined && q.length > k)
    throw new UnsupportedQueryError(
      `expectedSse: ${plan.method} answers queries of at most k = ${k} attributes`,
    );
  return q;
}

/** `truth` checked as a table over exactly the query's attributes `q`. O(cells). */
function checkTruth(truth: MarginalTable, q: readonly number[]): MarginalTable {
  validateTable(truth, "expectedSse");
  if (truth.attributes.join(",") !== q.join(","))
    fail("expectedSse", `truth must be over the query's attributes [${q.join(", ")}]`, truth.attributes);
  return truth;
}

/** Truth cells (fractions) over the query's cells in the method's cell space, or zeros. */
function truthCells(
  plan: ProtocolPlan,
  q: readonly number[],
  encoded: boolean,
  truth: MarginalTable | undefined,
  size: number,
): Float64Array {
  if (truth === undefined) return new Float64Array(size);
  checkTruth(truth, q);
  const cells = encoded ? encodeTable(encodingRuntime(plan.schema), truth).cells : truth.cells;
  if (cells.length !== size) fail("expectedSse", `truth must have ${size} cells`, cells.length);
  return Float64Array.from(cells);
}

/** 1 for the cells of the query's code space that encode values (all cells when not encoded). */
function validMask(plan: ProtocolPlan, q: readonly number[], encoded: boolean): Uint8Array {
  const cards = q.map((a) => plan.schema.attributes[a]!.labels.length);
  if (!encoded) return new Uint8Array(cards.reduce((s, c) => s * c, 1)).fill(1);
  const bits = encodingRuntime(plan.schema).bits;
  const radices = q.map((a) => 2 ** bits[a]!);
  const size = radices.reduce((s, c) => s * c, 1);
  const out = new Uint8Array(size);
  const digits = new Array<number>(q.length).fill(0);
  for (let u = 0; u < size; u++) {
    out[u] = digits.every((v, i) => v < cards[i]!) ? 1 : 0;
    for (let i = q.length - 1; i >= 0; i--) {
      digits[i]!++;
      if (digits[i]! < radices[i]!) break;
      digits[i] = 0;
    }
  }
  return out;
}

/**
 * Expected SSE of the raw answer of a full-domain method (FC, InpRR, InpPS,
 * InpOLH) to `attributes`: every answer cell sums `S = D / |query cells|` cells
 * of the full table estimated by all n users, so
 * `E[SSE] = sum_c supportSumVariance(kind, p, q, S, f_c) / (n (p - q)^2)` over the
 * valid cells (../../../docs/algorithms.md#comparison-methods: FC's f-free form is `D * Var0` with Var0 the
 * oracle's per-cell variance; binary d = 8: `256 Var0`). Exact given the true
 * marginal; f = 0 everywhere without it. O(cells).
 */
export function expectedSseFullDomain(
  plan: FullDomainPlan,
  attributes: readonly number[],
  truth?: MarginalTable,
): number {
  const q = sseQuery(plan, attributes);
  const runtime = fullDomainRuntime(plan);
  const encoded = runtime.encoding !== null;
  const size = q.reduce((s, a) => s * runtime.radices[a]!, 1);
  const f = truthCells(plan, q, encoded, truth, size);
  const valid = validMask(plan, q, encoded);
  const { p, q: qq } = runtime.oracle;
  const kind = kindOf(plan.oracle);
  const sumSize = plan.domain / size;
  let total = 0;
  for (let c = 0; c < size; c++) if (valid[c] === 1) total += supportSumVariance(kind, p, qq, sumSize, f[c]!);
  return total / (plan.n * (p - qq) * (p - qq));
}

/**
 * Expected SSE of a grouped method (AM, MargRR, MargPS) for a query of t <= k
 * attributes, answered by the mean of the m groups containing it (m = 1 for
 * t = k). Each group holds N ~ Binomial(n, 1/G) users: oracle noise
 * `supportSumVariance / (N (p - q)^2)` per group (averaged: divided by m^2 and
 * summed), plus the sampling of users into groups `f (1 - f) (1 - m/G) / (m N)`,
 * with `E[1/N] = expectedInverseGroupSize(n, G)`. For AM at d = 8, k = 3 binary
 * the f-free value is `8 * 56 * Var_GRR(8 cells)`, about 359 Var0 in units of OUE's
 * Var0 (CALM's 448 Var0 assumes one common Var0). O(m cells).
 */
export function expectedSseGroups(
  plan: GroupPlan,
  attributes: readonly number[],
  truth?: MarginalTable,
): number {
  const q = sseQuery(plan, attributes, plan.k);
  const runtime = groupRuntime(plan);
  const encoded = runtime.encoding !== null;
  const digit = digitRadices(runtime.cardinalities, runtime.encoding);
  const size = q.reduce((s, a) => s * digit[a]!, 1);
  const f = truthCells(plan, q, encoded, truth, size);
  const valid = validMask(plan, q, encoded);
  const used = runtime.index.containing(q);
  const m = used.length;
  const inverse = expectedInverseGroupSize(plan.n, plan.groups);
  let total = 0;
  for (let c = 0; c < size; c++) {
    if (valid[c] !== 1) continue;
    let noise = 0;
    for (const g of used) {
      const oracle = runtime.oracles[g]!;
      const gap = oracle.p - oracle.q;
      const sumSize = runtime.domains[g]! / size;
      noise += supportSumVariance(kindOf(oracle.mechanism), oracle.p, oracle.q, sumSize, f[c]!) / (gap * gap);
    }
    total += (noise / (m * m)) * inverse + ((f[c]! * (1 - f[c]!) * (1 - m / plan.groups)) / m) * inverse;
  }
  return total;
}

/**
 * Expected SSE of a Hadamard method (FT, InpHT, MargHT). Each coefficient entry is
 * drawn by N ~ Binomial(n, 1/E) users; its estimate has variance
 * `E[1/N] (4p(1 - p)/(2p - 1)^2 + (1 - theta^2)(1 - m/E)) / m` when m groups'
 * copies are averaged (m = 1 for InpHT and a k-way MargHT query). A cell of the
 * answer over k2 bits is `2^-k2 sum_{alpha} ±theta_alpha`, so
 * `E[SSE] = V 2^{-2 k2} sum_{alpha ≠ ∅, alpha ⊆ bits} Var(theta_alpha)` over the V
 * valid cells. Without the truth, the first-order form of ../../../docs/algorithms.md#hadamard-methods:
 * `V 2^{-2 k2} (2^k2 - 1) E / (n (2p - 1)^2)` (binary InpHT:
 * `(2^k - 1)/2^k * |T| / ((2p - 1)^2 n)`, 5.8e-3 at d = 8, k = 3, eps = 1, n = 2^16).
 * O(k2 2^k2).
 */
export function expectedSseHadamard(
  plan: HadamardPlan,
  attributes: readonly number[],
  truth?: MarginalTable,
): number {
  const q = sseQuery(plan, attributes, plan.k);
  const encoding = encodingRuntime(plan.schema);
  const k2 = encodedQuery(encoding, q).length;
  const cells = 2 ** k2;
  const valid = validMask(plan, q, true);
  let validCells = 0;
  for (let c = 0; c < cells; c++) validCells += valid[c]!;
  const gap = 2 * plan.p - 1;
  const E = plan.entries;
  if (truth === undefined) return ((validCells / (cells * cells)) * ((cells - 1) * E)) / (plan.n * gap * gap);
  const theta = coefficientsFromMarginal(truthCells(plan, q, true, truth, cells));
  const m = plan.method === "marght" ? groupRuntimeCount(plan, q) : 1;
  const inverse = expectedInverseGroupSize(plan.n, E);
  const noise = (4 * plan.p * (1 - plan.p)) / (gap * gap);
  let sum = 0;
  for (let alpha = 1; alpha < cells; alpha++)
    sum += (inverse * (noise + (1 - theta[alpha]! ** 2) * (1 - m / E))) / m;
  return (validCells / (cells * cells)) * sum;
}

/** Number of MargHT groups (k-subsets) containing a t-subset: C(d - t, k - t). */
function groupRuntimeCount(plan: HadamardPlan, q: readonly number[]): number {
  const d = plan.schema.attributes.length;
  let result = 1;
  const top = d - q.length;
  const choose = plan.k - q.length;
  for (let i = 1; i <= choose; i++) result = (result * (top - choose + i)) / i;
  return Math.round(result);
}

/** SSE of the uniform table against the true marginal: `sum_c (1/|V| - M_c)^2` (deterministic; needs the truth). O(cells). */
export function expectedSseUniform(
  plan: ProtocolPlan,
  attributes: readonly number[],
  truth?: MarginalTable,
): number {
  const q = sseQuery(plan, attributes);
  if (truth === undefined)
    fail("expectedSse", "uni needs the true marginal (its error is the truth's distance to uniform)", truth);
  checkTruth(truth, q);
  const u = 1 / truth.cells.length;
  let total = 0;
  for (let c = 0; c < truth.cells.length; c++) total += (u - truth.cells[c]!) ** 2;
  return total;
}

/**
 * Expected SSE of a plan's raw answer to `attributes` (fractions) from the
 * method's own oracle variance, exact given the true marginal `truth`, first
 * order without it: FC, InpRR, InpPS, InpOLH ({@link expectedSseFullDomain}); AM,
 * MargRR, MargPS ({@link expectedSseGroups}); FT, InpHT, MargHT
 * ({@link expectedSseHadamard}); Uni ({@link expectedSseUniform}, truth needed).
 * Throws `UnsupportedQueryError` for methods without a closed form (CALM, BE, EM,
 * InpEM, InpCMS, InpHTCMS). Cost: that of the family function (O(cells) to O(k2 2^k2)).
 */
export function expectedSse(
  plan: ProtocolPlan,
  attributes: readonly number[],
  truth?: MarginalTable,
): number {
  switch (plan.method) {
    case "fc":
    case "inprr":
    case "inpps":
    case "inpolh":
      return expectedSseFullDomain(plan as FullDomainPlan, attributes, truth);
    case "am":
    case "margrr":
    case "margps":
      return expectedSseGroups(plan as GroupPlan, attributes, truth);
    case "ft":
    case "inpht":
    case "marght":
      return expectedSseHadamard(plan as HadamardPlan, attributes, truth);
    case "uni":
      return expectedSseUniform(plan, attributes, truth);
    default:
      throw new UnsupportedQueryError(`expectedSse: ${String(plan.method)} has no closed-form expected SSE`);
  }
}
