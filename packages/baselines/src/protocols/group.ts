import type { BaselineOptions, GroupPlan, GroupReport } from "../api.js";
import { expectedSseGroups } from "../expected-sse.js";
import { GROUP_KERNELS, type GroupSynopsis } from "../group-kernel.js";
import { type MethodConstructor, methodConstructor } from "./family.js";

type GroupConstructor = MethodConstructor<GroupPlan, GroupReport, GroupSynopsis, BaselineOptions>;

const GROUPS = { ...GROUP_KERNELS, expectedSse: expectedSseGroups };

/**
 * AM (CALM §3.4): users split uniformly into C(d, k) groups, one per k-way
 * marginal; each reports her group's cell through the adaptive FO. Answers
 * k-way queries (and smaller ones, by averaging); refuses when there are fewer
 * users than groups.
 * Building the method is O(1); its costs are those of its family functions.
 */
export const createAm: GroupConstructor = methodConstructor(GROUPS, "am", "AM");

/** MargRR (Cormode et al. §4.3): a random k-way marginal's one-hot binary code through SUE (RR with eps/2 per bit).
 * Building the method is O(1); its costs are those of its family functions. */
export const createMargRr: GroupConstructor = methodConstructor(GROUPS, "margrr", "MargRR");

/** MargPS (Cormode et al. §4.3): a random k-way marginal's binary code through GRR (preferential sampling).
 * Building the method is O(1); its costs are those of its family functions. */
export const createMargPs: GroupConstructor = methodConstructor(GROUPS, "margps", "MargPS");
