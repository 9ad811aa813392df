import { createMethod, METHOD_IDS } from "@calm-ldp/baselines";
import type { MethodFactory } from "./api.js";

/**
 * Method ids the default factory knows, in the CLI's order: CALM and every
 * baseline of `@calm-ldp/baselines` (calm, fc, am, ft, em, uni, be, inprr, inpps,
 * inpht, margrr, margps, marght, inpem, inpolh, inpcms, inphtcms).
 */
export const HARNESS_METHOD_IDS: readonly string[] = METHOD_IDS;

/**
 * The default method factory: `createMethod` of `@calm-ldp/baselines` (which
 * builds CALM from calm-core for "calm"), with the per-method options of the
 * experiment. Throws for an unknown id.
 */
export const defaultMethodFactory: MethodFactory = (id, options = {}) => createMethod(id, options);
