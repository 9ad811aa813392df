import { join } from "node:path";
import type { Command } from "../cli-kit.js";
import { UsageError } from "../cli-kit.js";
import { type CustomFigureResult, runCustomFigure } from "../reproduce/custom-figure.js";
import { CUSTOM_FIGURES } from "../reproduce/custom-figures.js";
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
  n?: number[];
  eps?: number[];
}

/** Every figure id: the harness figures, then the custom ones. */
const FIGURE_IDS = [...FIGURES.map((f) => f.id), ...CUSTOM_FIGURES.map((f) => f.id)];

export const reproduceCommand: Command = {
  name: "reproduce",
  summary: `Reproduce a paper figure (${FIGURE_IDS.join(", ")}, or "all") on the data available; writes JSON, CSV and SVG into --out.`,
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
    n: {
      type: "numbers",
      description:
        "user counts to run instead of the figure's (figures that take them: calm-fig6, cormode-fig7, cormode-fig8)",
      min: 2,
    },
    eps: {
      type: "numbers",
      description: "privacy budgets to run instead of the figure's (calm-fig6, cormode-fig7, cormode-fig8)",
      min: 0.001,
    },
  },
  async run(raw, context, positionals) {
    const options = raw as unknown as ReproduceOptions;
    const id = positionals[0];
    if (!id) throw new UsageError(`reproduce: name a figure (${FIGURE_IDS.join(", ")}, all)`);
    const figures = id === "all" ? FIGURES : FIGURES.filter((f) => f.id === id);
    const customs = id === "all" ? CUSTOM_FIGURES : CUSTOM_FIGURES.filter((f) => f.id === id);
    if (figures.length === 0 && customs.length === 0)
      throw new UsageError(
        `reproduce: unknown figure ${JSON.stringify(id)} (known: ${FIGURE_IDS.join(", ")}, all)`,
      );
    if (options.n?.some((n) => !Number.isSafeInteger(n)))
      throw new UsageError(`reproduce: --n must be integers (got ${JSON.stringify(options.n?.join(","))})`);
    const dataRoot = options["data-dir"] ?? defaultDataRoot();
    const { writeFile } = await import("node:fs/promises");
    const results: (FigureResult | CustomFigureResult)[] = [];
    /** Write a figure's result as `<out>/<id>.json` (listed first among its files) and keep it. */
    const keep = async (id: string, result: FigureResult | CustomFigureResult) => {
      const json = join(options.out, `${id}.json`);
      await writeFile(json, `${JSON.stringify(result, null, 2)}\n`);
      result.files.unshift(json);
      results.push(result);
    };
    const common = {
      dataRoot,
      out: options.out,
      ...(options.reps ? { reps: options.reps } : {}),
      seed: options.seed,
      quick: options.quick,
      log: context.log,
    };
    for (const figure of figures) {
      if (options.n || options.eps) context.log(`${figure.id}: --n and --eps do not apply, ignored`);
      const workers = options.workers ? { workers: options.workers } : {};
      await keep(figure.id, await runFigure(figure, { ...common, ...workers }));
    }
    for (const figure of customs) {
      const settings = {
        ...(options.n ? { n: options.n } : {}),
        ...(options.eps ? { eps: options.eps } : {}),
      };
      await keep(figure.id, await runCustomFigure(figure, { ...common, ...settings }));
    }
    return results.length === 1 ? results[0] : { figures: results };
  },
};
