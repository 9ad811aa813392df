import type {
  CategoricalLaw,
  DeviceOracle,
  ExactPrivacyOptions,
  IndependentBitsLaw,
  PrivacyLaw,
} from "./api.js";
import { fail } from "./errors.js";

/** Tolerance on log-ratios and on probability sums used by the exact check. */
export const EXACT_PRIVACY_TOLERANCE = 1e-9;

/**
 * The exact worst log-ratio `max over inputs v1, v2 and outputs y of
 * ln(Pr[y | v1] / Pr[y | v2])` of an oracle's output law (../../../docs/algorithms.md#frequency-oracles,
 * "exactly, for small domains"): the oracle is eps-LDP iff this is <= eps
 * (checked to EXACT_PRIVACY_TOLERANCE). Also verifies that every input's output
 * law sums to 1 (throws otherwise). By law kind:
 * - categorical: per output, max over inputs / min over inputs; O(D outputs);
 * - independent bits: per ordered input pair, the product over coordinates of the
 *   worse of the bit's two ratios; O(D^2 bits);
 * - public seed: the categorical check per enumerated seed; O(seeds D outputs);
 * - membership: the four membership classes of a pair; O(1).
 * Throws InvalidParameterError when the work would exceed `maxWork` (default 2e8).
 * Infinity means some output is possible under one input and impossible under another.
 */
export function exactWorstLogRatio(
  oracle: DeviceOracle | PrivacyLaw,
  options: ExactPrivacyOptions = {},
): number {
  return exactWorstPair(oracle, options).logRatio;
}

/** The worst log-ratio of {@link exactWorstLogRatio} and an input pair `[a, b]` that attains it (`Pr[y | a] / Pr[y | b]` largest). */
export interface WorstPair {
  readonly logRatio: number;
  readonly pair: readonly [number, number];
}

/**
 * {@link exactWorstLogRatio} with the input pair that attains it: the pair an
 * empirical audit should look at first (the contract suite audits it besides
 * (0, D - 1)). Same checks, errors and cost; for a membership law every pair is
 * worst and `[0, 1]` is returned.
 */
export function exactWorstPair(
  oracle: DeviceOracle | PrivacyLaw,
  options: ExactPrivacyOptions = {},
): WorstPair {
  const law: PrivacyLaw = "kind" in oracle ? oracle : oracle.privacyLaw();
  const domain = "kind" in oracle ? lawDomain(law) : oracle.domain;
  const maxWork = options.maxWork ?? 2e8;
  switch (law.kind) {
    case "categorical":
      checkWork(domain * law.outputs, maxWork);
      return categoricalWorst(domain, law.outputs, (v, out) => law.probabilities(v, out));
    case "public-seed": {
      checkWork(law.seeds * domain * law.outputs, maxWork);
      let worst: WorstPair = { logRatio: 0, pair: [0, 1] };
      for (let s = 0; s < law.seeds; s++) {
        const seed = categoricalWorst(domain, law.outputs, (v, out) => law.probabilities(v, s, out));
        if (seed.logRatio > worst.logRatio) worst = seed;
      }
      return worst;
    }
    case "independent-bits":
      checkWork(domain * domain * law.bits, maxWork);
      return independentBitsWorst(domain, law.bits, (v, out) => law.probabilities(v, out));
    case "membership":
      return {
        logRatio: membershipWorst(law.domain, law.size, law.logProbabilityIfMember, law.logProbabilityIfNot),
        pair: [0, 1],
      };
  }
}

function lawDomain(law: PrivacyLaw): number {
  if (law.kind === "membership") return law.domain;
  fail("exactWorstLogRatio", "a bare law needs its domain: pass the oracle instead", law.kind);
}

function checkWork(work: number, maxWork: number): void {
  if (work > maxWork) {
    fail(
      "exactWorstLogRatio",
      `the enumeration needs ${work} steps, more than maxWork = ${maxWork} (domain too large)`,
      work,
    );
  }
}

function checkSum(value: number, sum: number): void {
  if (!(Math.abs(sum - 1) <= EXACT_PRIVACY_TOLERANCE)) {
    fail("exactWorstLogRatio", `the output law of input ${value} must sum to 1`, sum);
  }
}

/**
 * Every entry of `row`, the law of input `input` (length entries), must be a probability in [0, 1]
 * (`event(i)` names entry i in the error). Returns the row's sum. O(length).
 */
function checkRow(
  row: Float64Array,
  length: number,
  input: number,
  event: (index: number) => string,
): number {
  let sum = 0;
  for (let i = 0; i < length; i++) {
    const probability = row[i]!;
    if (!(probability >= 0 && probability <= 1))
      fail("exactWorstLogRatio", `Pr[${event(i)} | input ${input}] must be in [0, 1]`, probability);
    sum += probability;
  }
  return sum;
}

/** A law's row: the output probabilities of input v, written into and returned as `out`. */
type LawRow = (v: number, out: Float64Array) => Float64Array;

function categoricalWorst(domain: number, outputs: number, probabilities: LawRow): WorstPair {
  const highest = new Float64Array(outputs);
  const lowest = new Float64Array(outputs).fill(Number.POSITIVE_INFINITY);
  const highestAt = new Uint32Array(outputs);
  const lowestAt = new Uint32Array(outputs);
  const row = new Float64Array(outputs);
  for (let v = 0; v < domain; v++) {
    checkSum(
      v,
      checkRow(probabilities(v, row), outputs, v, (y) => `output ${y}`),
    );
    for (let y = 0; y < outputs; y++) {
      const probability = row[y]!;
      if (probability > highest[y]!) {
        highest[y] = probability;
        highestAt[y] = v;
      }
      if (probability < lowest[y]!) {
        lowest[y] = probability;
        lowestAt[y] = v;
      }
    }
  }
  let worst: WorstPair = { logRatio: 0, pair: [0, 1] };
  for (let y = 0; y < outputs; y++) {
    if (highest[y] === 0) continue;
    const logRatio = lowest[y] === 0 ? Number.POSITIVE_INFINITY : Math.log(highest[y]! / lowest[y]!);
    if (logRatio > worst.logRatio) worst = { logRatio, pair: [highestAt[y]!, lowestAt[y]!] };
    if (logRatio === Number.POSITIVE_INFINITY) break;
  }
  return worst;
}

function independentBitsWorst(domain: number, bits: number, probabilities: LawRow): WorstPair {
  const first = new Float64Array(bits);
  const second = new Float64Array(bits);
  let worst: WorstPair = { logRatio: 0, pair: [0, 1] };
  for (let a = 0; a < domain; a++) {
    checkRow(probabilities(a, first), bits, a, (j) => `bit ${j} = 1`);
    for (let b = 0; b < domain; b++) {
      if (a === b) continue;
      probabilities(b, second);
      let total = 0;
      for (let j = 0; j < bits; j++) {
        const pa = first[j]!;
        const pb = second[j]!;
        total += Math.max(bitLogRatio(pa, pb), bitLogRatio(1 - pa, 1 - pb));
      }
      if (total > worst.logRatio) worst = { logRatio: total, pair: [a, b] };
    }
  }
  return worst;
}

/** ln(x / y) for one bit outcome with probabilities x (first input) and y (second); -inf if impossible under the first. */
function bitLogRatio(x: number, y: number): number {
  if (x === 0) return Number.NEGATIVE_INFINITY;
  if (y === 0) return Number.POSITIVE_INFINITY;
  return Math.log(x / y);
}

function membershipWorst(domain: number, size: number, logMember: number, logNot: number): number {
  // Normalisation: C(D-1, k-1) subsets contain a given value, C(D-1, k) do not.
  let logWith = 0;
  for (let i = 1; i <= size - 1; i++) logWith += Math.log((domain - 1 - (size - 1) + i) / i);
  let logWithout = 0;
  for (let i = 1; i <= size; i++) logWithout += Math.log((domain - 1 - size + i) / i);
  const sum = Math.exp(logWith + logMember) + Math.exp(logWithout + logNot);
  checkSum(0, sum);
  // For inputs v1 != v2 the subsets fall in four classes; "v1 in, v2 out" and
  // "v2 in, v1 out" exist iff 1 <= k <= D - 1, with ratios e^(+-(logMember - logNot));
  // "both" and "neither" have ratio 1.
  if (size >= 1 && size <= domain - 1) return Math.abs(logMember - logNot);
  return 0;
}

/**
 * The output law of a report that favours the true value and treats every other
 * value alike: `"categorical"` over `size` outputs with probability p for the
 * true value and q for each other one (GRR), or `"independent-bits"` over `size`
 * bits, the true value's bit set with probability p and every other bit with q
 * (unary encodings). O(size) per `probabilities` call.
 */
export function peakedLaw(kind: "categorical", size: number, p: number, q: number): CategoricalLaw;
export function peakedLaw(kind: "independent-bits", size: number, p: number, q: number): IndependentBitsLaw;
export function peakedLaw(
  kind: "categorical" | "independent-bits",
  size: number,
  p: number,
  q: number,
): CategoricalLaw | IndependentBitsLaw;
export function peakedLaw(
  kind: "categorical" | "independent-bits",
  size: number,
  p: number,
  q: number,
): CategoricalLaw | IndependentBitsLaw {
  const probabilities = (value: number, out: Float64Array): Float64Array => {
    out.fill(q);
    out[value] = p;
    return out;
  };
  return kind === "categorical"
    ? { kind, outputs: size, probabilities }
    : { kind, bits: size, probabilities };
}
