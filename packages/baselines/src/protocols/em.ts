import type { AttributePlan, AttributeReport, EmOptions, EmSynopsis } from "../api.js";
import { ATTRIBUTE_KERNELS } from "../attribute-kernel.js";
import { type MethodConstructor, methodConstructor, type RegistryMethod } from "./family.js";

/** EM and InpEM: their synopsis answers with EM diagnostics. */
export type EmMethod = RegistryMethod<AttributePlan, AttributeReport, EmSynopsis>;

type EmConstructor = MethodConstructor<AttributePlan, AttributeReport, EmSynopsis, EmOptions>;

/**
 * EM (CALM §3.6, appendix A.2): every attribute through GRR with eps/d; each
 * query by EM over the reported combinations, started from the inclusion-exclusion
 * estimate. No count-level simulation (the server keeps the reports): per user.
 * Building the method is O(1); its costs are those of its family functions.
 */
export const createEm: EmConstructor = methodConstructor(ATTRIBUTE_KERNELS, "em", "EM");

/**
 * InpEM (Cormode et al. §4.4, after Fanti et al.): every bit of the binary
 * encoding through RR with eps/(total bits); each query by EM from the uniform
 * prior with Omega = 1e-5; `answer(q).diagnostics.stoppedAtPrior` flags the failure
 * of their Table 3.
 * Building the method is O(1); its costs are those of its family functions.
 */
export const createInpEm: EmConstructor = methodConstructor(ATTRIBUTE_KERNELS, "inpem", "InpEM");
