import { toCsv, type VegaLiteSpec } from "@calm-ldp/experiments";
import { renderSvg } from "../harness/render.js";
import { type FigureResultHeader, figureFiles, figureHeader } from "./figure-files.js";

/**
 * What a custom figure's run depends on: the options of `reproduce` that apply to
 * it (`n` and `eps` only when given on the command line), and a logger.
 */
export interface CustomFigureContext {
  dataRoot: string;
  reps: number;
  seed: number;
  /** Fewer settings, for a smoke run. */
  quick: boolean;
  /** `--n`: the user counts to run instead of the figure's. */
  n?: readonly number[];
  /** `--eps`: the privacy budgets to run instead of the figure's. */
  eps?: readonly number[];
  log(message: string): void;
}

/** A custom figure's output: result rows (printed under `results`, written as CSV) and plots. */
export interface CustomFigureOutput {
  rows: Record<string, unknown>[];
  /** Vega-Lite specifications, rendered to `<figure>.svg`, `<figure>-2.svg`, ... */
  specs: VegaLiteSpec[];
  /** The settings actually run (data, n, eps, methods, ...), echoed in the JSON. */
  settings: Record<string, unknown>;
}

/**
 * A paper figure that is not a grid of harness experiments (error of marginals vs
 * a parameter) but an analysis on released marginals (classification,
 * independence tests, Chow-Liu trees): it runs its own loop and returns rows and
 * plot specifications. Register it in `CUSTOM_FIGURES` (custom-figures.ts); the
 * `reproduce` command consults that registry after the harness `FIGURES`.
 */
export interface CustomFigureDefinition {
  id: string;
  paper: "CALM (CCS 2018)" | "Cormode et al. (SIGMOD 2018)";
  title: string;
  /** What the paper shows, in its own terms. */
  claim: string;
  /** Data of the paper that is not available here and what stands in for it. */
  substitution?: string;
  /** Default repetitions. */
  reps: number;
  /** Whether `--n` / `--eps` change this figure (otherwise they are ignored, with a log line). */
  takes: { n: boolean; eps: boolean };
  run(context: CustomFigureContext): Promise<CustomFigureOutput>;
}

/** Options of {@link runCustomFigure}. */
export interface RunCustomFigureOptions {
  dataRoot: string;
  out: string;
  reps?: number;
  seed: number;
  quick: boolean;
  n?: readonly number[];
  eps?: readonly number[];
  log(message: string): void;
}

/** What `reproduce` prints and writes for a custom figure. */
export interface CustomFigureResult extends FigureResultHeader {
  settings: Record<string, unknown>;
  results: Record<string, unknown>[];
  files: string[];
  seconds: number;
}

/**
 * Run a custom figure and write `<figure>.csv` and its SVG plots into `out`
 * (`reproduce` adds `<figure>.json`). Repetitions: `reps`, else the figure's
 * default (at most 3 with `quick`).
 */
export async function runCustomFigure(
  figure: CustomFigureDefinition,
  options: RunCustomFigureOptions,
): Promise<CustomFigureResult> {
  const started = performance.now();
  const reps = options.reps ?? (options.quick ? Math.min(3, figure.reps) : figure.reps);
  for (const key of ["n", "eps"] as const)
    if (options[key] && !figure.takes[key]) options.log(`${figure.id}: --${key} does not apply, ignored`);
  const output = await figure.run({
    dataRoot: options.dataRoot,
    reps,
    seed: options.seed,
    quick: options.quick,
    ...(options.n && figure.takes.n ? { n: options.n } : {}),
    ...(options.eps && figure.takes.eps ? { eps: options.eps } : {}),
    log: options.log,
  });
  const { files, write } = await figureFiles(options.out);
  await write(`${figure.id}.csv`, toCsv(output.rows));
  for (const [i, spec] of output.specs.entries())
    await write(`${figure.id}${i === 0 ? "" : `-${i + 1}`}.svg`, await renderSvg(spec));
  return {
    ...figureHeader(figure, { reps, seed: options.seed, quick: options.quick }),
    settings: output.settings,
    results: output.rows,
    files,
    seconds: (performance.now() - started) / 1000,
  };
}
