import { createBernoulli, type Rng } from "@calm-ldp/random";
import type { CategoricalLaw, DeviceOracle, IndependentBitsLaw } from "./api.js";
import { fail } from "./errors.js";
import { peakedLaw } from "./exact-privacy.js";
import { createGrrDevice } from "./grr.js";
import { checkEps } from "./params.js";

/**
 * The instantaneous layer of a memoized oracle (RAPPOR's permanent + instantaneous
 * randomized response, Erlingsson et al. CCS 2014 §3; Ding et al. NeurIPS 2017):
 * the permanent response `y1` (drawn once by the oracle at eps1) is randomized
 * afresh at every report by a second mechanism at `instantEps` (eps2), so equal
 * reports do not link a user across rounds.
 *
 * Second mechanism and composed support probabilities (p1, q1 of the oracle at eps1,
 * p2, q2 of the layer at eps2, D cells):
 * - GRR: y2 = GRR_eps2(y1) over the same D values, p2 = e^eps2 / (e^eps2 + D - 1),
 *   q2 = 1 / (e^eps2 + D - 1). Then
 *   P = Pr[y2 = x | x] = p1 p2 + (D - 1) q1 q2,
 *   Q = Pr[y2 = z | x], z != x, = p1 q2 + q1 p2 + (D - 2) q1 q2.
 *   The composition is again GRR with (P, Q) (P + (D - 1) Q = 1).
 * - unary (OUE, SUE): every bit of y1 independently through the oracle's own bit
 *   channel at eps2: a 1 stays 1 with p2, a 0 becomes 1 with q2 (OUE: p2 = 1/2,
 *   q2 = 1 / (e^eps2 + 1); SUE: p2 = e^(eps2/2) / (e^(eps2/2) + 1), q2 = 1 - p2).
 *   Bits stay independent given x, with
 *   P = Pr[bit x = 1 | x] = p1 p2 + (1 - p1) q2,
 *   Q = Pr[bit z = 1 | x], z != x, = q1 p2 + (1 - q1) q2.
 * In both cases the count-level estimator is the support estimator with (P, Q):
 * f(x) = (C(x)/N - Q) / (P - Q), unbiased, variance
 * (f P(1-P) + (1-f) Q(1-Q)) / (N (P - Q)^2) for independent users.
 *
 * Privacy: the layer is post-processing of y1, so any number of reports of one
 * memoized y1 reveal at most eps1 (the permanent response's eps) about x; a single
 * report alone is `exactWorstLogRatio(layer.composedLaw())`-LDP, never more than
 * eps1 (for GRR also never more than eps2).
 */
export interface InstantaneousLayer {
  /** The oracle's own support probabilities at eps1. */
  readonly p1: number;
  readonly q1: number;
  /** The layer's probabilities at eps2 (see above). */
  readonly p2: number;
  readonly q2: number;
  /** Composed support probabilities P = Pr[report supports x | x], Q = Pr[supports x | other value]. */
  readonly p: number;
  readonly q: number;
  /** Randomize a permanent response afresh (a GRR value, or a unary bitset of ceil(D/32) words, not modified). */
  perturb(permanent: number | Uint32Array, rng: Rng): number | Uint32Array;
  /** The exact output law of one composed report given x (for exactWorstLogRatio). */
  composedLaw(): CategoricalLaw | IndependentBitsLaw;
}

/**
 * The instantaneous layer of `oracle` (GRR, OUE or SUE; its `mechanism`) at
 * `instantEps`, with the composed probabilities of one report (formulas above).
 * Cost: GRR O(1) per report (two words); unary O(D) per report (one word per bit).
 */
export function instantaneousLayer(oracle: DeviceOracle, instantEps: number): InstantaneousLayer {
  const where = "instantaneousLayer";
  const eps2 = checkEps(where, instantEps);
  const domain = oracle.domain;
  const p1 = oracle.p;
  const q1 = oracle.q;
  if (oracle.mechanism === "grr") {
    const second = createGrrDevice({ eps: eps2, domain });
    const p2 = second.p;
    const q2 = second.q;
    const p = p1 * p2 + (domain - 1) * q1 * q2;
    const q = p1 * q2 + q1 * p2 + (domain - 2) * q1 * q2;
    return layer({ p1, q1, p2, q2, p, q }, "categorical", domain, (permanent, rng) => {
      if (typeof permanent !== "number") fail(where, "a GRR permanent response is a number", permanent);
      return second.perturb(permanent, rng);
    });
  }
  let p2: number;
  let q2: number;
  if (oracle.mechanism === "oue") {
    p2 = 0.5;
    q2 = 1 / (Math.exp(eps2) + 1);
  } else if (oracle.mechanism === "sue") {
    p2 = Math.exp(eps2 / 2) / (Math.exp(eps2 / 2) + 1);
    q2 = 1 - p2;
  } else {
    return fail(where, "the oracle must be grr, oue or sue", oracle.mechanism);
  }
  const p = p1 * p2 + (1 - p1) * q2;
  const q = q1 * p2 + (1 - q1) * q2;
  const keep = createBernoulli(p2);
  const raise = createBernoulli(q2);
  const stride = (domain + 31) >>> 5;
  return layer({ p1, q1, p2, q2, p, q }, "independent-bits", domain, (permanent, rng) => {
    if (!(permanent instanceof Uint32Array) || permanent.length !== stride)
      fail(where, `a unary permanent response is a Uint32Array of ${stride} words`, permanent);
    const out = new Uint32Array(stride);
    for (let x = 0; x < domain; x++) {
      const bit = (permanent[x >>> 5]! >>> (x & 31)) & 1;
      if ((bit ? keep : raise).sample(rng)) out[x >>> 5]! |= 1 << (x & 31);
    }
    return out;
  });
}

/** The layer from its probabilities and perturbation; the composed law is P for x, Q for every other value. O(1). */
function layer(
  probabilities: Pick<InstantaneousLayer, "p1" | "q1" | "p2" | "q2" | "p" | "q">,
  kind: "categorical" | "independent-bits",
  domain: number,
  perturb: InstantaneousLayer["perturb"],
): InstantaneousLayer {
  const { p, q } = probabilities;
  return { ...probabilities, perturb, composedLaw: () => peakedLaw(kind, domain, p, q) };
}
