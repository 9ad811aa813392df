import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HARNESS_METHOD_IDS, type MethodRun } from "@calm-ldp/experiments";
import { describe, expect, it } from "vitest";
import type { CalmPlanSummary, InspectedTable, PipelineMessage, PipelineRequest } from "../src/page/api.js";
import { cliCommand } from "../src/page/form-values.js";
import { INSPECT_LEVEL, runPipeline } from "../src/page/pipeline.js";
import { intervalTexts } from "../src/page/render-tables.js";
import { runPageCommand } from "./cli-process.js";

/** Everything the worker would post, sorted by type. */
function collect(request: PipelineRequest, shouldContinue?: () => boolean) {
  const messages: PipelineMessage[] = [];
  runPipeline(request, (m) => messages.push(m), shouldContinue ? { shouldContinue } : {});
  const of = <T extends PipelineMessage["type"]>(type: T) =>
    messages.filter((m): m is Extract<PipelineMessage, { type: T }> => m.type === type);
  return {
    messages,
    runs: of("run").map((m) => m.run),
    tables: of("table").map((m) => m.table),
    plans: of("plan").map((m) => m.plan),
    done: of("done")[0],
    error: of("error")[0],
    dataset: of("dataset"),
  };
}

/** `pnpm calm-ldp run` with the page's command line; returns its JSON and the per-repetition runs. */
const cli = (command: string) => runPageCommand<Record<string, unknown>, MethodRun>(command);

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b), 1e-300);
const key = (run: { method: string; eps: number; rep?: number }) =>
  `${run.method}|${run.eps}|${run.rep ?? 0}`;

const base: PipelineRequest = {
  config: {
    data: "synthetic:bn?strength=0.6&parents=2&cardinality=2&base=random&seed=7",
    n: 4000,
    d: 3,
    k: 3,
    eps: [0.5, 2],
    methods: [...HARNESS_METHOD_IDS],
    queries: "all",
    reps: 2,
    seed: 11,
    path: "counts",
  },
  random: "seeded",
  inspect: [0, 1, 2],
};

describe("web demo pipeline (the Web Worker's work, run here in Node)", () => {
  it("seeded: every method run equals `pnpm calm-ldp run` with the page's displayed command", async () => {
    const page = collect(base);
    expect(page.error).toBeUndefined();
    expect(page.done?.stopped).toBe(false);
    const { doc, runs } = await cli(cliCommand(base));
    expect(doc.config).toMatchObject({ ...base.config, eps: [0.5, 2] });
    expect(page.runs).toHaveLength(runs.length);
    const cliRuns = new Map(runs.map((run) => [key(run), run]));
    for (const run of page.runs) {
      const other = cliRuns.get(key(run))!;
      expect(other, key(run)).toBeDefined();
      expect(run.error).toEqual(other.error);
      if (run.error) continue;
      expect(close(run.sse, other.sse), `${key(run)}: ${run.sse} vs ${other.sse}`).toBe(true);
      expect(close(run.tvd, other.tvd)).toBe(true);
      expect(run.details).toEqual(other.details);
    }
  });

  it("repetition 1's inspected marginal: true table sums to 1, and its SSE is the run's (the only query when d = k)", () => {
    const page = collect(base);
    const okRuns = page.runs.filter((run) => run.rep === 0 && !run.error);
    expect(page.tables).toHaveLength(okRuns.length);
    for (const table of page.tables) {
      expect(table.attributes).toEqual([0, 1, 2]);
      expect(table.truth).toHaveLength(8);
      expect(table.truth.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 12);
      const run = okRuns.find((r) => r.method === table.method && r.eps === table.eps)!;
      const sse = table.truth.reduce((s, t, i) => s + (table.estimate[i]! - t) ** 2, 0);
      expect(close(sse, run.sse), `${sse} vs ${run.sse}`).toBe(true);
    }
    // The same sample for every method and eps of a repetition.
    expect(new Set(page.tables.map((t) => t.truth.join(","))).size).toBe(1);
    expect(page.dataset).toHaveLength(1);
    expect(page.dataset[0]!.names).toHaveLength(3);
  });

  it("reports CALM's plan per eps, matching the runs' recorded l and m", () => {
    const page = collect({ ...base, config: { ...base.config, d: 6, k: 2, queries: 5 }, inspect: [1, 4] });
    const plans: CalmPlanSummary[] = page.plans;
    expect(plans.map((p) => p.eps)).toEqual([0.5, 2]);
    for (const plan of plans) {
      const run = page.runs.find((r) => r.rep === 0 && r.method === "calm" && r.eps === plan.eps)!;
      expect(run.details).toMatchObject({ l: plan.l, m: plan.m });
      expect(plan.views).toHaveLength(plan.m);
      for (const view of plan.views) expect(view.attributes).toHaveLength(plan.l);
    }
    const tables: InspectedTable[] = page.tables;
    expect(tables.every((t) => t.attributes.join() === "1,4" && t.truth.length === 4)).toBe(true);
  });

  it("crypto: perturbation draws from crypto.getRandomValues (runs differ), data and queries stay seeded", () => {
    const request: PipelineRequest = { ...base, random: "crypto", config: { ...base.config, reps: 1 } };
    const seeded = collect({ ...request, random: "seeded" });
    const first = collect(request);
    const second = collect(request);
    expect(first.error).toBeUndefined();
    const calm = (c: ReturnType<typeof collect>) => c.tables.filter((t) => t.method === "calm");
    expect(calm(first)[0]!.truth).toEqual(calm(seeded)[0]!.truth);
    // Two crypto runs (and a crypto and a seeded run) give different estimates: with n = 4000 users the chance of
    // two independent noisy estimates agreeing in every cell is negligible.
    expect(calm(first)[0]!.estimate).not.toEqual(calm(second)[0]!.estimate);
    expect(calm(first)[0]!.estimate).not.toEqual(calm(seeded)[0]!.estimate);
  });

  it("uploads: a CSV parsed in the page equals the CLI loading the same file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "calm-web-csv-"));
    const lines = ["colour,size,shape"];
    for (let i = 0; i < 600; i++)
      lines.push(
        `${["red", "green", "blue"][i % 3]},${i % 7 < 3 ? "S" : "L"},${(i * 31) % 5 === 0 ? "round" : "square"}`,
      );
    const text = `${lines.join("\n")}\n`;
    const path = join(dir, "shapes.csv");
    writeFileSync(path, text);
    const request: PipelineRequest = {
      config: { ...base.config, data: "csv:shapes.csv", n: 1000, d: 3, k: 2, queries: "all", reps: 2 },
      random: "seeded",
      inspect: [0, 2],
      upload: { format: "csv", name: "shapes.csv", text },
    };
    const page = collect(request);
    expect(page.error).toBeUndefined();
    expect(page.dataset[0]!.names).toEqual(["colour", "size", "shape"]);
    expect(page.dataset[0]!.info.sampling?.withReplacement).toBe(true);
    const { runs } = await cli(cliCommand(request).replace("csv:shapes.csv", `csv:${path}`));
    const cliRuns = new Map(runs.map((run) => [key(run), run]));
    for (const run of page.runs)
      if (!run.error) expect(close(run.sse, cliRuns.get(key(run))!.sse)).toBe(true);
  });

  it("reports bad requests and malformed uploads as an error message naming the problem", () => {
    expect(collect({ ...base, inspect: [0, 0, 1] }).error?.message).toMatch(
      /inspected marginal must be k = 3 distinct attribute indices in \[0, 2\] \(got \[0,0,1\]\)/,
    );
    expect(collect({ ...base, config: { ...base.config, k: 4 } }).error?.message).toMatch(
      /k must be an integer in \[1, d = 3\]/,
    );
    const bad = collect({
      ...base,
      config: { ...base.config, data: "csv:bad.csv", k: 2 },
      inspect: [0, 1],
      upload: { format: "csv", name: "bad.csv", text: "a,b,c\n1,2,3\n1,2\n" },
    });
    expect(bad.error?.message).toMatch(/bad\.csv/);
    expect(bad.runs).toHaveLength(0);
  });

  it("stops between repetitions when asked, saying so", () => {
    let calls = 0;
    const page = collect(base, () => calls++ < 1);
    expect(page.done?.stopped).toBe(true);
    expect(new Set(page.runs.map((r) => r.rep))).toEqual(new Set([0]));
  });

  it("95% intervals per inspected cell: analytic for CALM (covered query) and InpHT, covering the truth; bound-based on maximum-entropy answers", () => {
    // d = 3, k = 2: CALM's plan (l = 2, m = 3) covers every pair, so the inspected pair is answered by projection.
    const request = (seed: number, inspect: number[], d = 3): PipelineRequest => ({
      ...base,
      config: { ...base.config, d, k: 2, eps: [1], methods: ["calm", "inpht"], reps: 1, seed, queries: 3 },
      inspect,
    });
    let pairs = 0;
    const perMethod = new Map<string, { covered: number; pairs: number }>();
    for (let seed = 0; seed < 40; seed++) {
      const page = collect(request(seed, [0, 2]));
      expect(page.error).toBeUndefined();
      expect(page.tables).toHaveLength(2);
      for (const table of page.tables) {
        const interval = table.interval!;
        expect(interval, `${table.method} seed ${seed}: ${table.noInterval}`).toBeDefined();
        expect(interval).toMatchObject({ level: INSPECT_LEVEL, method: "analytic" });
        expect(interval.lower).toHaveLength(4);
        const tally = perMethod.get(table.method) ?? { covered: 0, pairs: 0 };
        table.truth.forEach((truth, i) => {
          const [lower, upper, se] = [interval.lower[i]!, interval.upper[i]!, interval.standardError[i]!];
          expect(Number.isFinite(se) && se > 0).toBe(true);
          expect(0 <= lower && lower < upper && upper <= 1).toBe(true);
          const inside = lower <= truth && truth <= upper ? 1 : 0;
          tally.covered += inside;
          pairs++;
          tally.pairs++;
        });
        perMethod.set(table.method, tally);
        // The page's column: "lower – upper (± half-width)" per cell.
        expect(intervalTexts(table)[0]).toBe(
          `${interval.lower[0]!.toFixed(3)} – ${interval.upper[0]!.toFixed(3)} (± ${((interval.upper[0]! - interval.lower[0]!) / 2).toFixed(3)})`,
        );
      }
    }
    // 40 samples x 4 cells per method: nominal 95%; binomial sd over 160 pairs ~ 1.7 points, and cells of one
    // table are correlated, so the band is wide (about -4 sd below, +2.3 sd above).
    for (const [method, tally] of perMethod) {
      // Measured: calm 0.956, inpht 0.963.
      expect(tally.covered / tally.pairs, method).toBeGreaterThanOrEqual(0.88);
      expect(tally.covered / tally.pairs, method).toBeLessThanOrEqual(0.99);
    }
    expect(pairs).toBe(2 * 40 * 4);

    // d = 4: CALM's plan (l = 2, m = 4) does not cover {1, 3}: a maximum-entropy answer with calm-core's
    // bound-based interval (conservative: >= 95% whatever the true table), standard error NaN.
    let covered = 0;
    for (let seed = 0; seed < 10; seed++) {
      const maxent = collect(request(seed, [1, 3], 4)).tables.find((t) => t.method === "calm")!;
      expect(maxent.interval, maxent.noInterval).toMatchObject({ level: INSPECT_LEVEL, method: "bounds" });
      maxent.truth.forEach((truth, i) => {
        const [lower, upper] = [maxent.interval!.lower[i]!, maxent.interval!.upper[i]!];
        expect(0 <= lower && lower <= upper && upper <= 1).toBe(true);
        expect(Number.isNaN(maxent.interval!.standardError[i]!)).toBe(true);
        if (lower <= truth && truth <= upper) covered++;
      });
    }
    // 40 pairs; a sound 95% interval misses more than 4 with probability < 0.05 even if independent.
    expect(covered).toBeGreaterThanOrEqual(36);
  });
});
