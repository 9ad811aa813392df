import { createAdaptive } from "./adaptive.js";
import type { CreateOracleOptions, FrequencyOracle, OracleEntry, OracleFactory } from "./api.js";
import { createBlh } from "./blh.js";
import { fail } from "./errors.js";
import { createGrr, createGrrDevice } from "./grr.js";
import { createHr } from "./hr.js";
import { createOlh } from "./olh.js";
import { createOue, createOueDevice } from "./oue.js";
import { createRr } from "./rr.js";
import { createSs } from "./ss.js";
import { createSue, createSueDevice } from "./sue.js";

/**
 * The one table of oracles, in a stable order: adding an oracle is its file and
 * one line here (CONTRIBUTING.md "Adding an oracle"). {@link OracleName},
 * {@link ORACLE_NAMES}, {@link oracleFactories}, {@link createOracle}, the CLI's
 * `--oracle` choices, the contract run of `contract.test.ts` and the registry-wide
 * tests all derive from it.
 */
export const ORACLE_TABLE = /* @__PURE__ */ Object.freeze({
  grr: { create: createGrr, device: createGrrDevice },
  rr: {
    create: createRr,
    fixedDomain: 2,
    contractConfigs: [
      { eps: 1, domain: 2 },
      { eps: 0.25, domain: 2 },
    ],
  },
  oue: { create: createOue, device: createOueDevice },
  sue: { create: createSue, device: createSueDevice },
  olh: { create: createOlh },
  blh: { create: createBlh },
  hr: { create: createHr },
  ss: { create: createSs },
  adaptive: { create: createAdaptive as OracleFactory },
} as const satisfies Record<string, OracleEntry>);

/** Registry names of the built-in oracles (the CLI's `--oracle` values): the keys of {@link ORACLE_TABLE}. */
export type OracleName = keyof typeof ORACLE_TABLE;

/** Every registry name, in the table's order. */
export const ORACLE_NAMES: readonly OracleName[] = /* @__PURE__ */ Object.freeze(
  /* @__PURE__ */ Object.keys(ORACLE_TABLE) as OracleName[],
);

/** The built-in oracles' factories by name (from {@link ORACLE_TABLE}). */
export const oracleFactories: Readonly<Record<OracleName, OracleFactory>> =
  /* @__PURE__ */ factoriesOf(ORACLE_NAMES);

/**
 * The frozen name-to-factory map of `names`. A function of its own so the one call
 * above is marked pure with side-effect-free arguments: a bundler of the built
 * `dist/index.js` (one file, where `sideEffects: false` cannot drop this module)
 * then drops the table, and every oracle with it, from an app that uses none of
 * them. An inline `ORACLE_NAMES.map(...)` argument is a call a bundler must keep.
 * O(number of oracles).
 */
function factoriesOf(names: readonly OracleName[]): Readonly<Record<OracleName, OracleFactory>> {
  return Object.freeze(
    Object.fromEntries(names.map((name) => [name, oracleEntry(name).create])) as Record<
      OracleName,
      OracleFactory
    >,
  );
}

/** The table line of `name`, typed as the common {@link OracleEntry}. O(1). */
export function oracleEntry(name: OracleName): OracleEntry {
  return ORACLE_TABLE[name];
}

/** Whether `name` is a registry name. O(1). */
export function isOracleName(name: unknown): name is OracleName {
  return typeof name === "string" && Object.hasOwn(ORACLE_TABLE, name);
}

/**
 * Create a built-in oracle by registry name with `{ eps, domain }` (and `g` for
 * olh, `k` for ss). Throws InvalidParameterError for an unknown name or invalid
 * parameters. O(1) (O(D) for olh/ss tables).
 */
export function createOracle(name: string, options: CreateOracleOptions): FrequencyOracle {
  if (!isOracleName(name)) fail("createOracle", `name must be one of ${ORACLE_NAMES.join(", ")}`, name);
  return oracleEntry(name).create(options);
}
