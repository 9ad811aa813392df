import { createAdaptive } from "./adaptive.js";
import type { CreateOracleOptions, FrequencyOracle, OracleFactory, OracleName } from "./api.js";
import { createBlh } from "./blh.js";
import { fail } from "./errors.js";
import { createGrr } from "./grr.js";
import { createHr } from "./hr.js";
import { createOlh } from "./olh.js";
import { createOue } from "./oue.js";
import { createRr } from "./rr.js";
import { createSs } from "./ss.js";
import { createSue } from "./sue.js";

/** The built-in oracles by name (the CLI's `--oracle` values), in a stable order. */
export const oracleFactories: Readonly<Record<OracleName, OracleFactory>> = /* @__PURE__ */ Object.freeze({
  grr: createGrr as OracleFactory,
  rr: createRr as OracleFactory,
  oue: createOue as OracleFactory,
  sue: createSue as OracleFactory,
  olh: createOlh as OracleFactory,
  blh: createBlh as OracleFactory,
  hr: createHr as OracleFactory,
  ss: createSs as OracleFactory,
  adaptive: createAdaptive as OracleFactory,
});

/** Every registry name, in the order of {@link oracleFactories}. */
export const ORACLE_NAMES: readonly OracleName[] = /* @__PURE__ */ Object.freeze(
  /* @__PURE__ */ Object.keys(oracleFactories) as OracleName[],
);

/** Whether `name` is a registry name. O(1). */
export function isOracleName(name: unknown): name is OracleName {
  return typeof name === "string" && Object.hasOwn(oracleFactories, name);
}

/**
 * Create a built-in oracle by registry name with `{ eps, domain }` (and `g` for
 * olh, `k` for ss). Throws InvalidParameterError for an unknown name or invalid
 * parameters. O(1) (O(D) for olh/ss tables).
 */
export function createOracle(name: string, options: CreateOracleOptions): FrequencyOracle {
  if (!isOracleName(name)) fail("createOracle", `name must be one of ${ORACLE_NAMES.join(", ")}`, name);
  return oracleFactories[name](options);
}
