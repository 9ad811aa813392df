import type { HadamardSketchReport, SketchOptions, SketchPlan, SketchReport } from "../api.js";
import { CMS_KERNELS, HCMS_KERNELS, type SketchSynopsis } from "../sketch-kernel.js";
import { type MethodConstructor, methodConstructor } from "./family.js";

type CmsConstructor = MethodConstructor<SketchPlan, SketchReport, SketchSynopsis, SketchOptions>;
type HcmsConstructor = MethodConstructor<SketchPlan, HadamardSketchReport, SketchSynopsis, SketchOptions>;

/**
 * InpCMS (Cormode et al. appendix B.2; Apple's count-mean sketch): each user picks
 * one of g public hash functions and reports her row's hashed binary code through
 * SUE over the width; the server's count-mean estimate of the full table is
 * marginalised. Options: rows (g, default 5), width (w, default 256), seed.
 * Building the method is O(1); its costs are those of its family functions.
 */
export const createInpCms: CmsConstructor = methodConstructor(CMS_KERNELS, "inpcms", "InpCMS");

/**
 * InpHTCMS (Cormode et al. appendix B.2; Apple's Hadamard count-mean sketch): a
 * random row and one non-zero Hadamard coefficient of the one-hot hashed value,
 * its sign through binary RR with eps; rows are rebuilt by the inverse FWHT.
 * Building the method is O(1); its costs are those of its family functions.
 */
export const createInpHtCms: HcmsConstructor = methodConstructor(HCMS_KERNELS, "inphtcms", "InpHTCMS");
