import type { CalmProtocolOptions } from "@calm-ldp/calm-core";
import type { BaselineProtocol, MethodFacts, MethodInfo, MethodOptions } from "./api.js";
import { fail } from "./errors.js";
import type { MethodId } from "./method-id.js";
import { createBe, createCalm, createCalmPlus } from "./protocols/calm.js";
import { createEm, createInpEm } from "./protocols/em.js";
import { createFc, createInpOlh, createInpPs, createInpRr } from "./protocols/full-domain.js";
import { createAm, createMargPs, createMargRr } from "./protocols/group.js";
import { createFt, createInpHt, createMargHt } from "./protocols/hadamard.js";
import { createInpCms, createInpHtCms } from "./protocols/sketch.js";
import { createUni } from "./protocols/uni.js";

/** One row of the method table: the static facts of {@link MethodInfo} and the factory. */
interface MethodEntry extends MethodFacts {
  /** Build the method from the caller's options (`calm`: the CALM options, `options.calm` or the options themselves). */
  readonly create: (options: MethodOptions, calm: CalmProtocolOptions) => BaselineProtocol;
}

/**
 * The one table of methods: CALM first, then calm-plus (this project's estimator on
 * CALM's reports), then the CALM paper's baselines, then Cormode et al.'s. Its keys
 * are exactly the ids of {@link MethodId} (`method-id.ts`, checked by `satisfies`);
 * {@link METHOD_IDS}, {@link METHOD_INFO} and {@link createMethod} derive from it;
 * adding a method is one row here and its id in `method-id.ts`.
 */
const METHOD_TABLE = {
  calm: {
    label: "CALM",
    paper: "CALM",
    data: "native",
    countLevel: true,
    expectedSse: false,
    summary: "views of l attributes, users split into m groups, adaptive FO, consistency, max entropy",
    create: (_, calm) => createCalm(calm),
  },
  "calm-plus": {
    label: "CALM+",
    paper: "calm-ldp",
    data: "native",
    countLevel: true,
    expectedSse: false,
    summary:
      "CALM's reports; every view's interaction coefficients pooled by variance, shrunk toward independence/Uni (empirical Bayes), then CALM's non-negativity and max entropy",
    create: (options, calm) => createCalmPlus(options.calmPlus ?? calm),
  },
  fc: {
    label: "FC",
    paper: "CALM",
    data: "native",
    countLevel: true,
    expectedSse: true,
    summary: "the full contingency table through the adaptive FO",
    create: createFc,
  },
  am: {
    label: "AM",
    paper: "CALM",
    data: "native",
    countLevel: true,
    expectedSse: true,
    summary: "users split into C(d,k) groups, one k-way marginal each, adaptive FO",
    create: createAm,
  },
  ft: {
    label: "FT",
    paper: "CALM",
    data: "binary-encoding",
    countLevel: true,
    expectedSse: true,
    summary: "InpHT on the binary encoding (CALM's name)",
    create: createFt,
  },
  em: {
    label: "EM",
    paper: "CALM",
    data: "native",
    countLevel: false,
    expectedSse: false,
    summary: "every attribute with eps/d, EM per query from the inclusion-exclusion estimate",
    create: createEm,
  },
  uni: {
    label: "Uni",
    paper: "CALM",
    data: "native",
    countLevel: true,
    expectedSse: true,
    summary: "the uniform table",
    create: createUni,
  },
  be: {
    label: "BE",
    paper: "CALM",
    data: "binary-encoding",
    countLevel: true,
    expectedSse: false,
    summary: "CALM on the binary encoding",
    create: (_, calm) => createBe(calm),
  },
  inprr: {
    label: "InpRR",
    paper: "Cormode et al.",
    data: "binary-encoding",
    countLevel: true,
    expectedSse: true,
    summary: "SUE (RR with eps/2 per bit) over the full binary domain",
    create: createInpRr,
  },
  inpps: {
    label: "InpPS",
    paper: "Cormode et al.",
    data: "binary-encoding",
    countLevel: true,
    expectedSse: true,
    summary: "GRR over the full binary domain",
    create: createInpPs,
  },
  inpht: {
    label: "InpHT",
    paper: "Cormode et al.",
    data: "binary-encoding",
    countLevel: true,
    expectedSse: true,
    summary: "one Hadamard coefficient of weight 1..k through RR",
    create: createInpHt,
  },
  margrr: {
    label: "MargRR",
    paper: "Cormode et al.",
    data: "binary-encoding",
    countLevel: true,
    expectedSse: true,
    summary: "a random k-way marginal through SUE",
    create: createMargRr,
  },
  margps: {
    label: "MargPS",
    paper: "Cormode et al.",
    data: "binary-encoding",
    countLevel: true,
    expectedSse: true,
    summary: "a random k-way marginal through GRR",
    create: createMargPs,
  },
  marght: {
    label: "MargHT",
    paper: "Cormode et al.",
    data: "binary-encoding",
    countLevel: true,
    expectedSse: true,
    summary: "a random k-way marginal's Hadamard coefficient through RR",
    create: createMargHt,
  },
  inpem: {
    label: "InpEM",
    paper: "Cormode et al.",
    data: "binary-encoding",
    countLevel: false,
    expectedSse: false,
    summary: "every bit with eps/d, EM per query from the uniform prior",
    create: createInpEm,
  },
  inpolh: {
    label: "InpOLH",
    paper: "Cormode et al.",
    data: "binary-encoding",
    countLevel: false,
    expectedSse: true,
    summary: "OLH over the full binary domain",
    create: createInpOlh,
  },
  inpcms: {
    label: "InpCMS",
    paper: "Cormode et al.",
    data: "binary-encoding",
    countLevel: true,
    expectedSse: false,
    summary: "count-mean sketch (SUE per row) over the full binary domain",
    create: createInpCms,
  },
  inphtcms: {
    label: "InpHTCMS",
    paper: "Cormode et al.",
    data: "binary-encoding",
    countLevel: true,
    expectedSse: false,
    summary: "Hadamard count-mean sketch over the full binary domain",
    create: createInpHtCms,
  },
} as const satisfies Record<MethodId, MethodEntry>;

/** Every method id, in the table's order. */
export const METHOD_IDS: readonly MethodId[] = Object.freeze(Object.keys(METHOD_TABLE) as MethodId[]);

/** The nine mechanisms of Cormode et al.'s public code (the speed benchmark's set). */
export const CORMODE_CODE_METHODS: readonly MethodId[] = Object.freeze([
  "inprr",
  "margrr",
  "inpht",
  "marght",
  "inpps",
  "margps",
  "inpolh",
  "inpcms",
  "inphtcms",
]);

/** Static facts about every method, by id. */
export const METHOD_INFO: Readonly<Record<MethodId, MethodInfo>> = Object.freeze(
  Object.fromEntries(
    METHOD_IDS.map((id) => {
      const { create: _create, ...facts } = METHOD_TABLE[id] as MethodEntry;
      return [id, Object.freeze({ id, ...facts })];
    }),
  ) as Record<MethodId, MethodInfo>,
);

/** Whether `id` is a method id. O(1). */
export function isMethodId(id: unknown): id is MethodId {
  return typeof id === "string" && Object.hasOwn(METHOD_TABLE, id);
}

/**
 * A method by id with its options (each method reads its own: size limits and
 * `answers` for every baseline; rows/width/seed for the sketches; tolerance,
 * maxIterations, initialization, initialMix for EM/InpEM; `calm` for CALM and
 * BE; `calmPlus` for calm-plus (default `calm`); for "calm" and "calm-plus" the
 * options may also be CALM's own, e.g. `{ theta }`). Throws
 * InvalidParameterError for an unknown id. O(1).
 */
export function createMethod(
  id: string,
  given: MethodOptions | Readonly<Record<string, unknown>> = {},
): BaselineProtocol {
  if (!isMethodId(id)) return fail("createMethod", `id must be one of ${METHOD_IDS.join(", ")}`, id);
  const options = given as MethodOptions;
  const calmOptions = options.calm ?? (given as CalmProtocolOptions);
  const entry: MethodEntry = METHOD_TABLE[id];
  return entry.create(options, calmOptions);
}
