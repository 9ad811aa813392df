import { cryptoRng } from "@calm-ldp/random";
import type { EmpiricalAuditOptions, EmpiricalAuditResult, FrequencyOracle } from "./api.js";
import { clopperPearsonLower, clopperPearsonUpper } from "./clopper-pearson.js";
import { fail } from "./errors.js";

/**
 * Empirical privacy audit of the sampler that really runs (../../../docs/algorithms.md#frequency-oracles):
 * perturb input a and input b many times through `perturbBatch` with the given
 * (default: cryptographic) random source, and lower-bound the eps the sampler
 * achieves.
 *
 * Every report falls in one of four classes: whether it supports a, whether it
 * supports b (for every built-in oracle this pair is a sufficient statistic of
 * the likelihood ratio between a and b; for any oracle the bound stays valid,
 * only its power depends on it). Phase 1 draws `selectionSamples` reports per
 * input and picks, for each direction (a over b, b over a), the union of
 * classes with the best lower bound. Phase 2 draws `samples` fresh reports per
 * input and bounds `ln(P_a(E) / P_b(E))` below by `ln(CP_lower(P_a(E)) /
 * CP_upper(P_b(E)))` with one-sided Clopper-Pearson bounds, each at
 * (1 - confidence) / 4 (Bonferroni over 2 directions x 2 bounds), so the reported
 * bound holds with probability >= confidence. Selection on separate samples keeps
 * the bound honest. A correct eps-LDP oracle gives `epsLower <= eps` with
 * probability >= confidence; a broken one (for example unary encoding that never
 * resets the true bit, eps ~ 1.55 at a nominal 1) exceeds eps.
 *
 * Cost: 2 (samples + selectionSamples) perturbations and twice as many support
 * checks; memory O(chunk * stride).
 */
export function empiricalAudit<Report>(
  oracle: FrequencyOracle<Report>,
  options: EmpiricalAuditOptions = {},
): EmpiricalAuditResult {
  const where = "empiricalAudit";
  const samples = options.samples ?? 1_000_000;
  if (!Number.isInteger(samples) || samples < 100 || samples > 2 ** 31)
    fail(where, "samples must be an integer in [100, 2^31]", samples);
  const selectionSamples = options.selectionSamples ?? Math.ceil(samples / 4);
  if (!Number.isInteger(selectionSamples) || selectionSamples < 100 || selectionSamples > 2 ** 31) {
    fail(where, "selectionSamples must be an integer in [100, 2^31]", selectionSamples);
  }
  const confidence = options.confidence ?? 0.99;
  if (!(confidence > 0 && confidence < 1)) fail(where, "confidence must be in (0, 1)", confidence);
  const pair = options.pair ?? [0, 1];
  const [a, b] = pair;
  if (
    !Number.isInteger(a) ||
    !Number.isInteger(b) ||
    a < 0 ||
    b < 0 ||
    a >= oracle.domain ||
    b >= oracle.domain ||
    a === b
  ) {
    fail(where, `pair must be two different integers in [0, ${oracle.domain})`, [a, b]);
  }
  const chunk = options.chunk ?? 65_536;
  if (!Number.isInteger(chunk) || chunk < 1) fail(where, "chunk must be an integer >= 1", chunk);
  const rng = options.rng ?? cryptoRng();
  const alpha = (1 - confidence) / 4;

  const classify = (value: number, draws: number): Float64Array => {
    const counts = new Float64Array(4);
    const values = new Uint32Array(Math.min(chunk, draws)).fill(value);
    for (let done = 0; done < draws; done += values.length) {
      const size = Math.min(values.length, draws - done);
      const batch = oracle.perturbBatch(size === values.length ? values : values.subarray(0, size), rng);
      const { words, stride } = batch;
      for (let i = 0, offset = 0; i < size; i++, offset += stride) {
        const key =
          (oracle.supportsAt(words, offset, a) ? 1 : 0) + (oracle.supportsAt(words, offset, b) ? 2 : 0);
        counts[key]! += 1;
      }
    }
    return counts;
  };

  const bound = (favoured: number, other: number, trials: number): number =>
    Math.log(clopperPearsonLower(favoured, trials, alpha) / clopperPearsonUpper(other, trials, alpha));

  const choose = (favoured: Float64Array, other: Float64Array): number[] => {
    const order = [0, 1, 2, 3].sort(
      (i, j) => (favoured[j]! + 0.5) / (other[j]! + 0.5) - (favoured[i]! + 0.5) / (other[i]! + 0.5),
    );
    let best: number[] = [order[0]!];
    let bestBound = Number.NEGATIVE_INFINITY;
    for (let size = 1; size < 4; size++) {
      const classes = order.slice(0, size);
      const hitsFavoured = classes.reduce((sum, c) => sum + favoured[c]!, 0);
      const hitsOther = classes.reduce((sum, c) => sum + other[c]!, 0);
      const candidate = bound(hitsFavoured, hitsOther, selectionSamples);
      if (candidate > bestBound) {
        bestBound = candidate;
        best = classes;
      }
    }
    return best.sort();
  };

  const selectA = classify(a, selectionSamples);
  const selectB = classify(b, selectionSamples);
  const eventForA = choose(selectA, selectB);
  const eventForB = choose(selectB, selectA);
  const measureA = classify(a, samples);
  const measureB = classify(b, samples);

  const evaluate = (classes: number[], favoured: Float64Array, other: Float64Array) => {
    const hitsFavoured = classes.reduce((sum, c) => sum + favoured[c]!, 0);
    const hitsOther = classes.reduce((sum, c) => sum + other[c]!, 0);
    return {
      lower: bound(hitsFavoured, hitsOther, samples),
      estimate: Math.log(hitsFavoured / hitsOther),
      hits: [hitsFavoured, hitsOther] as const,
    };
  };
  const forA = evaluate(eventForA, measureA, measureB);
  const forB = evaluate(eventForB, measureB, measureA);
  const useA = forA.lower >= forB.lower;
  const chosen = useA ? forA : forB;
  const names = [
    `supports neither ${a} nor ${b}`,
    `supports ${a} only`,
    `supports ${b} only`,
    `supports both ${a} and ${b}`,
  ];
  return {
    pair: [a, b],
    samples,
    selectionSamples,
    confidence,
    epsLower: Math.max(0, chosen.lower),
    epsEstimate: chosen.estimate,
    event: { favours: useA ? a : b, classes: (useA ? eventForA : eventForB).map((c) => names[c]!) },
    hits: chosen.hits,
  };
}
