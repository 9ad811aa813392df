import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HARNESS_METHOD_IDS, validateConfig } from "@calm-ldp/experiments";
import { describe, expect, it } from "vitest";
import { parseOptions } from "../cli-kit.js";
import { reproduceCommand } from "../commands/reproduce.js";
import { FIGURES, type FigureDefinition } from "./figures.js";
import { runFigure } from "./run-figure.js";

describe("figure definitions", () => {
  it("every figure defines valid experiments, quick and full", () => {
    for (const figure of FIGURES) {
      for (const quick of [true, false]) {
        const runs = figure.runs({
          dataRoot: "/data",
          reps: 2,
          seed: 1,
          available: HARNESS_METHOD_IDS,
          quick,
        });
        for (const run of runs.filter((r) => r.config.methods.length > 0)) validateConfig(run.config);
        if (figure.id.startsWith("calm-")) expect(runs.length).toBeGreaterThan(0);
      }
    }
  });

  it("the CALM figures use the paper's settings", () => {
    const fig4 = FIGURES.find((f) => f.id === "calm-fig4")!.runs({
      dataRoot: "/d",
      reps: 20,
      seed: 1,
      available: ["calm"],
      quick: false,
    });
    expect(fig4.map((r) => [r.config.n, r.config.d, r.config.k]).slice(0, 6)).toEqual([
      [2 ** 16, 8, 3],
      [2 ** 16, 16, 3],
      [2 ** 16, 32, 3],
      [2 ** 18, 16, 6],
      [2 ** 18, 32, 6],
      [2 ** 18, 32, 8],
    ]);
    expect(fig4[0]!.config.eps).toHaveLength(10);
    expect(fig4[0]!.config).toMatchObject({ queries: 50, reps: 20 });
  });
});

describe("runFigure", () => {
  it("runs a figure's experiments and writes JSON rows, CSV and SVG", async () => {
    const out = mkdtempSync(join(tmpdir(), "calm-fig-"));
    const figure: FigureDefinition = {
      id: "test-fig",
      paper: "CALM (CCS 2018)",
      title: "test",
      claim: "none",
      metric: "sse",
      x: "k",
      xTitle: "k",
      plot: "lines",
      reps: 2,
      runs: ({ reps, seed }) =>
        [2, 3].map((k) => ({
          panel: "p",
          x: k,
          config: {
            data: "synthetic:iid?p=0.3",
            n: 5000,
            d: 5,
            k,
            eps: [1],
            methods: ["calm"],
            queries: 3,
            reps,
            seed,
          },
        })),
    };
    const result = await runFigure(figure, {
      dataRoot: "/nowhere",
      out,
      seed: 1,
      quick: false,
      workers: 1,
      log: () => {},
    });
    expect(result.rows.map((r) => [r.x, r.k, r.reps])).toEqual([
      [2, 2, 2],
      [3, 3, 2],
    ]);
    expect(readFileSync(join(out, "test-fig.csv"), "utf8")).toContain("panel,series");
    expect(existsSync(join(out, "test-fig.svg"))).toBe(true);
  });

  it("the command refuses unknown figures", async () => {
    const parsed = parseOptions(reproduceCommand, []);
    await expect(
      reproduceCommand.run(parsed.options, { json: true, log: () => {} }, ["fig99"]) as Promise<unknown>,
    ).rejects.toThrow(/unknown figure "fig99"/);
    await expect(
      reproduceCommand.run(parsed.options, { json: true, log: () => {} }, []) as Promise<unknown>,
    ).rejects.toThrow(/name a figure/);
  });
});
