import type { BaselineOptions, FullDomainPlan, FullDomainReport } from "../api.js";
import { expectedSseFullDomain } from "../expected-sse.js";
import { FULL_DOMAIN_KERNELS, type FullDomainSynopsis } from "../full-domain-kernel.js";
import { type MethodConstructor, methodConstructor } from "./family.js";

type FullDomainConstructor = MethodConstructor<
  FullDomainPlan,
  FullDomainReport,
  FullDomainSynopsis,
  BaselineOptions
>;

const FULL_DOMAIN = { ...FULL_DOMAIN_KERNELS, expectedSse: expectedSseFullDomain };

/**
 * FC (CALM §3.3): every user reports her whole record, a cell of the full
 * contingency table (`prod c_i` cells), through the adaptive FO (GRR or OUE); a
 * marginal is a sum of the estimated full table. Exact count-level simulation.
 * Refuses when the full table exceeds `maxCells` (d = 32 binary: 2^32 cells).
 * Building the method is O(1); its costs are those of its family functions.
 */
export const createFc: FullDomainConstructor = methodConstructor(FULL_DOMAIN, "fc", "FC");

/**
 * InpRR (Cormode et al. §4.2): every bit of the one-hot full binary table through
 * RR with eps/2 (SUE over 2^{total bits}). Exact count-level simulation.
 * Building the method is O(1); its costs are those of its family functions.
 */
export const createInpRr: FullDomainConstructor = methodConstructor(FULL_DOMAIN, "inprr", "InpRR");

/** InpPS (Cormode et al. §4.2): the record's binary code through GRR over 2^{total bits}. Exact count-level simulation.
 * Building the method is O(1); its costs are those of its family functions. */
export const createInpPs: FullDomainConstructor = methodConstructor(FULL_DOMAIN, "inpps", "InpPS");

/**
 * InpOLH (Cormode et al. appendix B.2): the record's binary code through OLH
 * (g = round(e^eps) + 1) over 2^{total bits}; the server evaluates every user's
 * hash on the whole domain (O(n D)). No count-level simulation (the hash makes the
 * joint law of the support counts intractable): runs per user.
 * Building the method is O(1); its costs are those of its family functions.
 */
export const createInpOlh: FullDomainConstructor = methodConstructor(FULL_DOMAIN, "inpolh", "InpOLH", false);
