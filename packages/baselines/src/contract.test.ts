import { contingencyTable, uniformSchema } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import {
  CannotRunError,
  InvalidParameterError,
  InvalidRecordError,
  MethodTooLargeError,
  UnsupportedQueryError,
} from "./errors.js";
import { createMethod, isMethodId, METHOD_IDS, METHOD_INFO } from "./registry.js";
import { runMethod } from "./run.js";
import { bernoulliStore, chainStore, mixedSchema, thrown } from "./test-support.js";
import { describeMethodContract } from "./testing/index.js";

const schema = mixedSchema();
const store = chainStore(seededRng(21), 600, schema);
const parameters = { schema, n: store.size, eps: 2, k: 2 };
const options = { calm: { theta: 0.01 } };

/** Invalid reports of the right outer shape for each method (the aggregator must reject them). */
function malformedReport(id: string): unknown {
  switch (id) {
    case "fc":
    case "inpps":
      return 1e6;
    case "inprr":
      return new Uint32Array(3);
    case "inpolh":
      return { seed: 1, bucket: 99 };
    case "am":
    case "margrr":
    case "margps":
      return { group: 99, report: 0 };
    case "ft":
    case "inpht":
    case "marght":
      return { coefficient: 1e6, sign: 1 };
    case "inpcms":
      return { row: 7, report: new Uint32Array(8) };
    case "inphtcms":
      return { row: 0, coefficient: 0, sign: 1 };
    case "em":
    case "inpem":
      return [0, 1];
    case "uni":
      return 3;
    default:
      return { view: 1e6, report: 0 };
  }
}

// Every registered method runs the published contract suite (@calm-ldp/baselines/testing).
for (const id of METHOD_IDS) {
  describeMethodContract(id, () => createMethod(id, options), {
    malformedReport: malformedReport(id),
    // calm-plus runs CALM's protocol unchanged (same plan, same reports): its plan names "calm".
    planMethod: id === "calm-plus" ? "calm" : id,
    // unbiased linear answers are normalised only in expectation (noise, dropped invalid codes)
    distributions: ["calm", "calm-plus", "be", "em", "inpem", "uni"].includes(id),
    // CALM's queries are validated by reconstruction (InvalidQueryError), the baselines' here.
    invalidQueryError: id === "calm" || id === "calm-plus" ? Error : InvalidParameterError,
  });
}

describe.each(METHOD_IDS.map((id) => [id]))("%s registry facts", (id) => {
  it("has its id, and count-level simulation and expected SSE exactly as METHOD_INFO says", () => {
    const method = createMethod(id, options);
    expect(method.id).toBe(id);
    expect(typeof method.simulate === "function").toBe(METHOD_INFO[id].countLevel);
    expect(typeof method.expectedSse === "function").toBe(METHOD_INFO[id].expectedSse);
  });
});

describe("queries beyond what a method collected", () => {
  it.each(["am", "margrr", "margps", "marght", "inpht", "ft"])("%s refuses a (k+1)-way query", (id) => {
    const method = createMethod(id);
    const plan = method.plan(parameters);
    const synopsis = method.estimate(plan, runMethod(method, plan, store, seededRng(4)).aggregator);
    expect(() => synopsis.query([0, 1, 2])).toThrow(UnsupportedQueryError);
    expect(synopsis.query([0, 1]).cells).toHaveLength(6);
  });

  it("AM answers a smaller query as the mean of the groups containing it", () => {
    const method = createMethod("am");
    const plan = method.plan({ schema: uniformSchema(4), n: 4000, eps: 2, k: 2 });
    const data = bernoulliStore(seededRng(5), 4000, 4, 0.3);
    const synopsis = method.estimate(plan, runMethod(method, plan, data, seededRng(6)).aggregator);
    const pairs = [
      [0, 1],
      [0, 2],
      [0, 3],
    ].map((q) => synopsis.query(q));
    const mean = [0, 1].map((v) => pairs.reduce((s, t) => s + t.cells[2 * v]! + t.cells[2 * v + 1]!, 0) / 3);
    const single = synopsis.query([0]);
    expect(single.cells[0]).toBeCloseTo(mean[0]!, 12);
    expect(single.cells[1]).toBeCloseTo(mean[1]!, 12);
  });
});

describe("refusals before starting", () => {
  const d32 = uniformSchema(32);

  it("FC at d = 32 needs a 2^32-cell table", () => {
    const error = thrown(() =>
      createMethod("fc").plan({ schema: d32, n: 2 ** 18, eps: 1, k: 3 }),
    ) as MethodTooLargeError;
    expect(error).toBeInstanceOf(MethodTooLargeError);
    expect(error).toBeInstanceOf(CannotRunError);
    expect(error.needed).toBe(2 ** 32);
    expect(error.unit).toBe("cells");
    expect(error.message).toMatch(/fc\.plan: .*4,294,967,296 \(2\^32\) cells/);
  });

  it("AM at d = 32, k = 8 has 10.5 M groups, more than n = 2^18 users", () => {
    const error = thrown(() =>
      createMethod("am").plan({ schema: d32, n: 2 ** 18, eps: 1, k: 8 }),
    ) as MethodTooLargeError;
    expect(error).toBeInstanceOf(MethodTooLargeError);
    expect(error.needed).toBe(10_518_300);
    expect(error.unit).toBe("users");
    expect(error.message).toMatch(/10,518,300 groups need at least as many users/);
  });

  it("the full-domain Cormode methods, the Marg methods and InpOLH's server refuse what they cannot hold", () => {
    for (const id of ["inprr", "inpps", "inpolh", "inpcms", "inphtcms"])
      expect(() => createMethod(id).plan({ schema: d32, n: 2 ** 18, eps: 1, k: 3 })).toThrow(
        MethodTooLargeError,
      );
    expect(() => createMethod("marght").plan({ schema: d32, n: 2 ** 18, eps: 1, k: 8 })).toThrow(
      MethodTooLargeError,
    );
    // d = 16: the table fits, but n * D = 2^34 hash evaluations exceed the work cap
    expect(() =>
      createMethod("inpolh").plan({ schema: uniformSchema(16), n: 2 ** 18, eps: 1, k: 3 }),
    ).toThrow(/n \* D hash evaluations/);
    expect(() =>
      createMethod("inpht", { maxCells: 1000 }).plan({ schema: d32, n: 2 ** 18, eps: 1, k: 3 }),
    ).toThrow(/5,488 coefficients/);
  });

  it("CALM's own refusal comes through the registry as a CannotRunError", () => {
    expect(() => createMethod("calm").plan({ schema: uniformSchema(8), n: 100, eps: 1, k: 3 })).toThrow(
      CannotRunError,
    );
  });
});

describe("registry and runMethod", () => {
  it("knows every id and rejects others", () => {
    expect(METHOD_IDS).toHaveLength(18);
    for (const id of METHOD_IDS) expect(isMethodId(id)).toBe(true);
    expect(isMethodId("nope")).toBe(false);
    expect(() => createMethod("nope")).toThrow(/createMethod: id must be one of calm, calm-plus, fc/);
  });

  it("runMethod picks counts when exact, per-user otherwise, and refuses counts without a simulation", () => {
    const fc = createMethod("fc");
    const fcPlan = fc.plan(parameters);
    expect(runMethod(fc, fcPlan, store, seededRng(1)).path).toBe("counts");
    expect(runMethod(fc, fcPlan, store, seededRng(1), { path: "per-user" }).path).toBe("per-user");
    const em = createMethod("em");
    const emPlan = em.plan(parameters);
    expect(runMethod(em, emPlan, store, seededRng(1)).path).toBe("per-user");
    expect(() => runMethod(em, emPlan, store, seededRng(1), { path: "counts" })).toThrow(CannotRunError);
    expect(() => runMethod(fc, fcPlan, store, seededRng(1), { path: "fast" as never })).toThrow(
      InvalidParameterError,
    );
  });

  it("runMethod runs a protocol without simulatePerUser record by record through report and add", () => {
    const { simulatePerUser: _perUser, simulate: _counts, ...bare } = createMethod("fc");
    const plan = bare.plan(parameters);
    const result = runMethod(bare, plan, store, seededRng(1));
    expect(result.path).toBe("per-user");
    expect(result.aggregator.reports).toBe(store.size);
    expect(() => runMethod(bare, plan, store, seededRng(1), { path: "counts" })).toThrow(CannotRunError);
  });

  it("a store that does not match the plan is rejected", () => {
    const fc = createMethod("fc");
    const plan = fc.plan(parameters);
    const other = bernoulliStore(seededRng(1), 10, 4, 0.5);
    expect(() => runMethod(fc, plan, other, seededRng(1))).toThrow(InvalidRecordError);
    expect(contingencyTable(other, [0]).cells).toHaveLength(2);
  });
});
