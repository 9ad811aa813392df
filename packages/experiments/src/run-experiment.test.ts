import { uniformTable } from "@calm-ldp/marginal-algebra";
import { describe, expect, it } from "vitest";
import type { ExperimentConfig, HarnessMethod, MethodFactory } from "./api.js";
import { toCsv } from "./csv.js";
import { errorVsEpsSpec, heatmapSpec } from "./plots.js";
import { runExperiment } from "./run-experiment.js";
import { summarize } from "./summarize.js";

const config: ExperimentConfig = {
  data: "synthetic:bn?strength=0.6&parents=2&seed=4",
  n: 20_000,
  d: 6,
  k: 2,
  eps: [0.5, 2],
  methods: ["calm"],
  queries: 10,
  reps: 3,
  seed: 7,
};

/** A method that answers the uniform table and records what it was given. */
function recordingFactory(log: { stores: unknown[]; methods: string[] }): MethodFactory {
  return (id) => {
    const method: HarnessMethod = {
      id,
      plan: (p) => ({ method: id, version: 1, eps: p.eps, n: p.n, k: p.k, schema: p.schema }),
      report: () => 0,
      createAggregator: () => ({ add() {}, merge() {}, reports: 0 }),
      estimate: (plan) => ({
        query: (a) =>
          uniformTable(
            [...a].sort((x, y) => x - y),
            a.map(() => plan.schema.attributes[0]!.labels.length),
          ),
      }),
      simulate: (plan, data) => {
        log.stores.push(data);
        log.methods.push(`${id}@${plan.eps}`);
        return { add() {}, merge() {}, reports: data.size };
      },
    };
    return method;
  };
}

describe("runExperiment", () => {
  it("runs every method x eps x repetition, reproducibly from the seed", () => {
    const a = runExperiment(config);
    const b = runExperiment(config);
    expect(a.runs).toHaveLength(6);
    expect(a.runs.map((r) => [r.rep, r.eps, r.sse])).toEqual(b.runs.map((r) => [r.rep, r.eps, r.sse]));
    expect(a.results.map((r) => [r.method, r.eps, r.reps])).toEqual([
      ["calm", 0.5, 3],
      ["calm", 2, 3],
    ]);
    // More budget, less error.
    expect(a.results[1]!.sseMean).toBeLessThan(a.results[0]!.sseMean);
    expect(a.runs[0]!.details).toMatchObject({ l: expect.any(Number), m: expect.any(Number) });
    expect(a.dataset.source).toContain("synthetic:bn");
  });

  it("gives every method and eps of a repetition the same population sample", () => {
    const log = { stores: [] as unknown[], methods: [] as string[] };
    runExperiment({ ...config, methods: ["a", "b"], reps: 2 }, { factory: recordingFactory(log) });
    expect(log.methods).toEqual(["a@0.5", "b@0.5", "a@2", "b@2", "a@0.5", "b@0.5", "a@2", "b@2"]);
    expect(new Set(log.stores.slice(0, 4)).size).toBe(1);
    expect(log.stores[4]).not.toBe(log.stores[0]);
  });

  it("draws calm-plus's reports from calm's stream (same reports), other methods from their own; no (seed, rep) collisions", () => {
    const draws = (seed: number, reps: number, methods: string[]) => {
      const out: Record<string, number[]> = {};
      const factory: MethodFactory = (id) => ({
        ...recordingFactory({ stores: [], methods: [] })(id),
        simulate: (_plan, data, rng) => {
          (out[id] ??= []).push(rng.nextUint32());
          return { add() {}, merge() {}, reports: data.size };
        },
      });
      runExperiment({ ...config, seed, reps, methods }, { factory });
      return out;
    };
    const a = draws(1, 3, ["calm", "calm-plus", "b"]);
    expect(a["calm-plus"]).toEqual(a.calm);
    expect(a.b![0]).not.toBe(a.calm![0]);
    // A method's stream does not depend on its position in the list.
    expect(draws(1, 3, ["b", "calm"]).calm).toEqual(a.calm);
    // deriveSeed(1, 2) = deriveSeed(3, 0) (XOR of seed and index): repetitions are rooted
    // at repetitionSeed, so seed 1's third repetition is not seed 3's first.
    expect(draws(3, 1, ["calm"]).calm![0]).not.toBe(a.calm![4]);
  });

  it("records a method that refuses a setting instead of failing the run", () => {
    const result = runExperiment({ ...config, n: 300, reps: 1, eps: [1] }); // CALM needs theta * n >= 1 view
    expect(result.runs[0]!.error).toMatch(/CannotRunError/);
    expect(result.results[0]).toMatchObject({ reps: 0, failures: 1 });
  });

  it("rejects bad configurations naming the field", () => {
    expect(() => runExperiment({ ...config, reps: 0 })).toThrow(/reps must be an integer >= 1/);
    expect(() => runExperiment({ ...config, k: 7 })).toThrow(/k must be an integer in \[1, d = 6\]/);
    expect(() => runExperiment({ ...config, eps: [] })).toThrow(/eps must be a non-empty list/);
    expect(() => runExperiment({ ...config, data: "adult:/nowhere" })).toThrow(/must be loaded first/);
  });
});

describe("summaries, CSV and plots", () => {
  it("summarize gives mean and sample standard deviation per method and eps", () => {
    const rows = summarize([
      { method: "x", eps: 1, rep: 0, sse: 1, tvd: 0.1, seconds: 1 },
      { method: "x", eps: 1, rep: 1, sse: 3, tvd: 0.3, seconds: 3 },
      { method: "x", eps: 1, rep: 2, sse: Number.NaN, tvd: Number.NaN, seconds: 0, error: "boom" },
    ]);
    expect(rows).toEqual([
      {
        method: "x",
        eps: 1,
        sseMean: 2,
        sseStd: Math.SQRT2,
        tvdMean: 0.2,
        tvdStd: expect.closeTo(Math.SQRT2 / 10, 12),
        seconds: 4 / 3,
        reps: 2,
        failures: 1,
        error: "boom",
      },
    ]);
  });

  it("toCsv quotes fields that need it", () => {
    expect(
      toCsv([
        { a: 1, b: "x,y" },
        { a: 2, c: 'say "hi"' },
      ]),
    ).toBe('a,b,c\n1,"x,y",\n2,,"say ""hi"""\n');
  });

  it("plot specs carry the data", () => {
    const spec = errorVsEpsSpec([
      {
        method: "calm",
        eps: 1,
        sseMean: 0.01,
        sseStd: 0.002,
        tvdMean: 0.1,
        tvdStd: 0.01,
        seconds: 1,
        reps: 5,
        failures: 0,
      },
    ]);
    expect((spec.data as { values: unknown[] }).values).toEqual([
      { method: "calm", eps: 1, mean: 0.01, low: 0.008, high: 0.012 },
    ]);
    const heat = heatmapSpec([{ x: 2, y: 10, value: 0.5 }], { xTitle: "l", yTitle: "m" });
    expect((heat.data as { values: unknown[] }).values).toHaveLength(1);
  });
});
