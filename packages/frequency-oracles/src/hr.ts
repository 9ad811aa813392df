import { fwht, parity32 } from "@calm-ldp/hadamard";
import { binomial, createBernoulli, type Rng } from "@calm-ldp/random";
import type { FrequencyOracle, OracleOptions } from "./api.js";
import { defineOracle } from "./define-oracle.js";
import { checkOracleOptions } from "./params.js";
import { simulateSupportPerCell } from "./simulate.js";
import { WordBuffer } from "./words.js";

/** Largest D for Hadamard Response (its server tally has K <= 2^23 cells). */
export const MAX_HR_DOMAIN = 2 ** 22;
/** Joint count-level simulation costs ~D K / 2 binomial draws; above this it falls back to per-cell. */
const JOINT_SIMULATION_MAX_WORK = 2 ** 22;

/**
 * Hadamard Response (Acharya, Sun and Zhang, AISTATS 2019), the one-bit-of-
 * communication form: K = the smallest power of two > D; value v owns the set
 * C_v = { y in [K] : popcount((v + 1) & y) even } of K/2 outputs (row v + 1 of
 * the K x K Sylvester-Hadamard matrix, skipping the all-ones row 0). The client
 * reports y uniform on C_v with probability p = e^eps / (e^eps + 1), else uniform
 * on its complement; each output has probability 2p/K or 2(1-p)/K, ratio e^eps.
 * Any two rows agree on exactly K/2 columns, so a report supports x != v with
 * q = 1/2. Variance `(e^eps + 1)^2 / (n (e^eps - 1)^2)`.
 *
 * Report: y (a number, one word). Client O(1): two words, y uniform on [K] then
 * one bit of (v + 1) flipped if y's side is wrong (a bijection between C_v and
 * its complement). Server: counts per output, then support counts from one fast
 * Walsh-Hadamard transform, `C(x) = (N + W[x + 1]) / 2`, O(K log K).
 */
export function createHr(options: OracleOptions): FrequencyOracle<number> {
  const { eps, domain } = checkOracleOptions("createHr", options, MAX_HR_DOMAIN);
  const outputs = 2 ** Math.ceil(Math.log2(domain + 1));
  const mask = outputs - 1;
  const expEps = Math.exp(eps);
  const p = expEps / (expEps + 1);
  const keep = createBernoulli(p);
  const keepThreshold = keep.threshold;
  const buffer = new WordBuffer();
  const joint = (domain * outputs) / 2 <= JOINT_SIMULATION_MAX_WORK;

  return defineOracle<number>({
    id: "hr",
    eps,
    domain,
    p,
    q: 0.5,
    outputs, // one word per report, an integer in [0, K): defineOracle's default codec
    parameters: { outputs },
    tallySize: outputs,

    perturbInto(values: ArrayLike<number>, start: number, end: number, out: Uint32Array, rng: Rng): void {
      const count = end - start;
      const words = buffer.draw(rng, 2 * count);
      for (let i = 0; i < count; i++) {
        const row = values[start + i]! + 1;
        const u = words[2 * i]!;
        const inside = u < keepThreshold || (u === keepThreshold && keep.fromWord(u, rng)) ? 0 : 1;
        let y = words[2 * i + 1]! & mask;
        if (parity32(row & y) !== inside) y ^= row & -row;
        out[i] = y;
      }
    },

    supportsAt: (words: Uint32Array, offset: number, value: number): boolean =>
      parity32((value + 1) & words[offset]!) === 0,

    accumulate(words: Uint32Array, count: number, tally: Float64Array): void {
      for (let i = 0; i < count; i++) tally[words[i]!]! += 1;
    },

    tallyToSupport(tally: Float64Array, out: Float64Array): void {
      const transformed = fwht(Float64Array.from(tally));
      const total = transformed[0]!;
      for (let x = 0; x < domain; x++) out[x] = (total + transformed[x + 1]!) / 2;
    },

    /**
     * Joint (for D K / 2 <= 2^22, else per-cell): each output's law is uniform on
     * [K] with weight 2(1-p) plus uniform on C_v with weight 2p - 1, so
     * t_v ~ Binomial(N_v, 2p - 1) users land uniformly on C_v and the rest
     * uniformly on [K] (multinomials by conditional binomials); then the same
     * transform as the server. O(D K / 2) binomial draws.
     */
    simulateCounts(trueCounts: ArrayLike<number>, rng: Rng, out: Float64Array): void {
      let total = 0;
      for (let x = 0; x < domain; x++) total += trueCounts[x]!;
      if (!joint) {
        simulateSupportPerCell(trueCounts, total, p, 0.5, rng, out);
        return;
      }
      const tally = new Float64Array(outputs);
      let uniform = total;
      for (let v = 0; v < domain; v++) {
        let inside = binomial(rng, trueCounts[v]!, 2 * p - 1);
        uniform -= inside;
        const row = v + 1;
        let cells = outputs / 2;
        for (let y = 0; y < outputs && inside > 0; y++) {
          if (parity32(row & y) !== 0) continue;
          const share = cells === 1 ? inside : binomial(rng, inside, 1 / cells);
          tally[y]! += share;
          inside -= share;
          cells -= 1;
        }
      }
      for (let y = 0; y < outputs && uniform > 0; y++) {
        const share = y === outputs - 1 ? uniform : binomial(rng, uniform, 1 / (outputs - y));
        tally[y]! += share;
        uniform -= share;
      }
      const transformed = fwht(tally);
      for (let x = 0; x < domain; x++) out[x] = (total + transformed[x + 1]!) / 2;
    },
    simulation: joint ? "joint" : "per-cell",

    privacyLaw: () => ({
      kind: "categorical",
      outputs,
      probabilities(value: number, out: Float64Array): Float64Array {
        const row = value + 1;
        for (let y = 0; y < outputs; y++) out[y] = ((parity32(row & y) === 0 ? p : 1 - p) * 2) / outputs;
        return out;
      },
    }),
  });
}
