import { createCalmProtocol } from "@calm-ldp/calm-core";
import type { HarnessMethod, MethodFactory } from "./api.js";
import { invalid } from "./errors.js";

/** Method ids the default factory knows, in the CLI's order. */
export const HARNESS_METHOD_IDS: readonly string[] = Object.freeze(["calm"]);

/**
 * The default method factory: "calm" (calm-core) with its options (theta, l, m,
 * oracle, selection, ...). Throws for an unknown id.
 */
export const defaultMethodFactory: MethodFactory = (id, options = {}) => {
  if (id === "calm") {
    const calm = createCalmProtocol(options);
    return calm as unknown as HarnessMethod;
  }
  return invalid("defaultMethodFactory", `unknown method; known: ${HARNESS_METHOD_IDS.join(", ")}`, id);
};
