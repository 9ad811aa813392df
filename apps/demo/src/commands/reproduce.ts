import { join } from "node:path";
import type { Command } from "../cli-kit.js";
import { UsageError } from "../cli-kit.js";
import { defaultDataRoot } from "../reproduce/data-root.js";
import { FIGURES } from "../reproduce/figures.js";
import { type FigureResult, runFigure } from "../reproduce/run-figure.js";

interface ReproduceOptions {
  out: string;
  reps?: number;
  seed: number;
  quick: boolean;
  "data-dir"?: string;
  workers?: number;
}

export const reproduceCommand: Command = {
  name: "reproduce",
  summary: `Reproduce a paper figure (${FIGURES.map((f) => f.id).join(", ")}, or "all") on the data available; writes JSON, CSV and SVG into --out.`,
  positionals: ["figure"],
  options: {
    out: { type: "string", description: "output directory", default: "out/reproduce" },
    reps: { type: "integer", description: "repetitions (default: the paper's, 3 with --quick)", min: 1 },
    seed: { type: "integer", description: "master seed", default: 2018, min: 0 },
    quick: {
      type: "boolean",
      description: "fewer settings and eps values, 3 repetitions: a smoke run",
      default: false,
    },
    "data-dir": {
      type: "string",
      description:
        "the shared datasets folder (default: ../shared/datasets beside the repository, or $CALM_LDP_DATA)",
    },
    workers: { type: "integer", description: "worker threads per experiment", min: 1 },
  },
  async run(raw, context, positionals) {
    const options = raw as unknown as ReproduceOptions;
    const id = positionals[0];
    if (!id) throw new UsageError(`reproduce: name a figure (${FIGURES.map((f) => f.id).join(", ")}, all)`);
    const figures = id === "all" ? FIGURES : FIGURES.filter((f) => f.id === id);
    if (figures.length === 0)
      throw new UsageError(
        `reproduce: unknown figure ${JSON.stringify(id)} (known: ${FIGURES.map((f) => f.id).join(", ")}, all)`,
      );
    const results: FigureResult[] = [];
    for (const figure of figures) {
      const result = await runFigure(figure, {
        dataRoot: options["data-dir"] ?? defaultDataRoot(),
        out: options.out,
        ...(options.reps ? { reps: options.reps } : {}),
        seed: options.seed,
        quick: options.quick,
        ...(options.workers ? { workers: options.workers } : {}),
        log: context.log,
      });
      const { writeFile } = await import("node:fs/promises");
      const json = join(options.out, `${figure.id}.json`);
      await writeFile(json, `${JSON.stringify(result, null, 2)}\n`);
      result.files.unshift(json);
      results.push(result);
    }
    return figures.length === 1 ? results[0] : { figures: results };
  },
};
