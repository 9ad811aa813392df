import type { DeviceOracle, PrivacyLaw } from "./api.js";
import { fail } from "./errors.js";
import { EXACT_PRIVACY_TOLERANCE } from "./exact-privacy.js";
import { fmix32 } from "./hash.js";

/** Random seed words the public-seed support row averages over (fixed, so the row is reproducible). */
const SUPPORT_SEEDS = 64;

/**
 * `out[y] = Pr[report supports y | input value]` as the declared output law implies
 * it, through the oracle's own `supportsAt`:
 * - categorical (one-word reports, the word is the output): `sum over outputs o of
 *   Pr[o | value] [supportsAt(o, y)]`, O(outputs D);
 * - independent bits (bit y of the bitset is the support of y): `Pr[bit y = 1]`, O(D);
 * - membership (k-subsets): `Pr[value in S]` for y = value, and
 *   `(k - Pr[value in S]) / (D - 1)` for the others (the subset is uniform within its class), O(D);
 * - public seed ([seed, output]): for y = value the average over 64 fixed seed words
 *   of the conditional law's mass on outputs that support y; for the others the law
 *   does not fix it (it depends on the hash), so `q` is written (documented, not checked).
 * Throws InvalidParameterError when the law's shape does not fit the report layout. O(see above).
 */
export function lawSupportRow(
  oracle: DeviceOracle,
  law: PrivacyLaw,
  value: number,
  out: Float64Array = new Float64Array(oracle.domain),
): Float64Array {
  const domain = oracle.domain;
  out.fill(0);
  switch (law.kind) {
    case "categorical": {
      if (oracle.stride !== 1) {
        fail("lawSupportRow", "a categorical law's outputs are one-word reports (stride 1)", oracle.stride);
      }
      const row = law.probabilities(value, new Float64Array(law.outputs));
      const word = new Uint32Array(1);
      for (let o = 0; o < law.outputs; o++) {
        if (row[o] === 0) continue;
        word[0] = o;
        for (let y = 0; y < domain; y++) if (oracle.supportsAt(word, 0, y)) out[y]! += row[o]!;
      }
      return out;
    }
    case "independent-bits":
      if (law.bits !== domain) {
        fail(
          "lawSupportRow",
          `an independent-bits law has one bit per value (bits = D = ${domain})`,
          law.bits,
        );
      }
      return law.probabilities(value, out);
    case "membership": {
      const member = membershipProbability(law.domain, law.size, law.logProbabilityIfMember);
      out.fill((law.size - member) / (domain - 1));
      out[value] = member;
      return out;
    }
    case "public-seed": {
      const row = new Float64Array(law.outputs);
      const words = new Uint32Array(2);
      let own = 0;
      for (let s = 0; s < SUPPORT_SEEDS; s++) {
        words[0] = fmix32(Math.imul(s + 1, 0x9e3779b1));
        law.given(value, words[0]!, row);
        for (let o = 0; o < law.outputs; o++) {
          words[1] = o;
          if (row[o]! > 0 && oracle.supportsAt(words, 0, value)) own += row[o]!;
        }
      }
      out.fill(oracle.q);
      out[value] = own / SUPPORT_SEEDS;
      return out;
    }
  }
}

/** Pr[value in S] under a membership law: C(D-1, k-1) subsets contain the value, each with exp(logMember). O(k). */
export function membershipProbability(domain: number, size: number, logMember: number): number {
  let logWith = 0;
  for (let i = 1; i <= size - 1; i++) logWith += Math.log((domain - 1 - (size - 1) + i) / i);
  return Math.exp(logWith + logMember);
}

/**
 * The exact, deterministic half of "the declaration matches the law": for every
 * input x and value y, the support probability the declared law implies
 * ({@link lawSupportRow}) equals the declared `p` (y = x) or `q` (y != x), to
 * 1e-9 (for public-seed laws only y = x is fixed by the law). Returns the first
 * mismatch as text, or undefined. Whether the *sampler* follows the law is
 * `samplerFit`'s statistical half. O(D) law rows.
 */
export function declaredSupportMismatch(oracle: DeviceOracle): string | undefined {
  const law = oracle.privacyLaw();
  if (law.kind === "independent-bits" || law.kind === "membership") {
    // The law speaks of bits; the support test must read bit y as the support of y.
    const words = new Uint32Array(oracle.stride);
    for (let j = 0; j < oracle.domain; j++) {
      words.fill(0);
      words[j >>> 5] = 1 << (j & 31);
      for (let y = 0; y < oracle.domain; y++) {
        if (oracle.supportsAt(words, 0, y) !== (y === j))
          return `supportsAt(bit ${j} set, ${y}) must be ${y === j}: a bit law needs "bit y = supports y"`;
      }
    }
  }
  const row = new Float64Array(oracle.domain);
  for (let x = 0; x < oracle.domain; x++) {
    lawSupportRow(oracle, law, x, row);
    for (let y = 0; y < oracle.domain; y++) {
      if (law.kind === "public-seed" && y !== x) continue;
      const declared = y === x ? oracle.p : oracle.q;
      if (!(Math.abs(row[y]! - declared) <= EXACT_PRIVACY_TOLERANCE)) {
        return `input ${x}: the law gives Pr[supports ${y}] = ${row[y]}, the oracle declares ${y === x ? "p" : "q"} = ${declared}`;
      }
    }
  }
  return undefined;
}
