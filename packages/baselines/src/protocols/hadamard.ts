import type { BaselineOptions, HadamardPlan, HadamardReport } from "../api.js";
import { expectedSseHadamard } from "../expected-sse.js";
import { HADAMARD_KERNELS, type HadamardSynopsis } from "../hadamard-kernel.js";
import { type MethodConstructor, methodConstructor } from "./family.js";

type HadamardConstructor = MethodConstructor<HadamardPlan, HadamardReport, HadamardSynopsis, BaselineOptions>;

const HADAMARD = { ...HADAMARD_KERNELS, expectedSse: expectedSseHadamard };

/**
 * InpHT (Cormode et al. §4.2, ../../../../docs/algorithms.md#hadamard-methods): each user reports one Hadamard
 * coefficient of her (binary-encoded) record, drawn uniformly from the non-empty
 * sets touching 1..k attributes, through binary RR with the whole eps.
 * Building the method is O(1); its costs are those of its family functions.
 */
export const createInpHt: HadamardConstructor = methodConstructor(HADAMARD, "inpht", "InpHT");

/** FT (CALM §3.5): the CALM paper's name for InpHT on binary-encoded data; the same method under the id "ft".
 * Building the method is O(1); its costs are those of its family functions. */
export const createFt: HadamardConstructor = methodConstructor(HADAMARD, "ft", "FT");

/**
 * MargHT (Cormode et al. §4.3): a random k-way marginal, one of its 2^k - 1
 * non-empty Hadamard coefficients, through binary RR; marginals do not share
 * coefficients.
 * Building the method is O(1); its costs are those of its family functions.
 */
export const createMargHt: HadamardConstructor = methodConstructor(HADAMARD, "marght", "MargHT");
