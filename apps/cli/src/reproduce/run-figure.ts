import type { LoadedDataset } from "@calm-ldp/datasets";
import { facetedLinesSpec, HARNESS_METHOD_IDS, heatmapSpec, toCsv } from "@calm-ldp/experiments";
import { loadPopulation } from "../harness/load.js";
import { runExperimentParallel } from "../harness/parallel.js";
import { renderSvg } from "../harness/render.js";
import { type FigureResultHeader, figureFiles, figureHeader } from "./figure-files.js";
import type { FigureDefinition, FigureRun } from "./figures.js";

/** One point of a reproduced figure. */
export interface FigureRow {
  panel: string;
  series: string;
  method: string;
  x: number;
  y?: number;
  eps: number;
  n: number;
  d: number;
  k: number;
  sseMean: number;
  sseStd: number;
  tvdMean: number;
  tvdStd: number;
  seconds: number;
  reps: number;
  failures: number;
  error?: string;
}

/** Options of {@link runFigure}. */
export interface RunFigureOptions {
  dataRoot: string;
  out: string;
  reps?: number;
  seed: number;
  quick: boolean;
  workers?: number;
  log(message: string): void;
}

/** What `reproduce` prints and writes for one figure. */
export interface FigureResult extends FigureResultHeader {
  /** Methods the paper's figure has that the harness does not (yet) know. */
  missingMethods: string[];
  rows: FigureRow[];
  files: string[];
  seconds: number;
}

/**
 * Reproduce one figure: run every experiment it defines through the harness
 * (repetitions in worker threads, file data loaded once per spec), collect one row
 * per (run, method, eps), and write `<figure>.json`, `<figure>.csv` and the SVG
 * plots (small multiples of error vs x, or heatmaps) into `out`.
 */
export async function runFigure(figure: FigureDefinition, options: RunFigureOptions): Promise<FigureResult> {
  const started = performance.now();
  const reps = options.reps ?? (options.quick ? Math.min(3, figure.reps) : figure.reps);
  const context = {
    dataRoot: options.dataRoot,
    reps,
    seed: options.seed,
    available: HARNESS_METHOD_IDS,
    quick: options.quick,
  };
  // Figures list the paper's methods; any this build's registry lacks is dropped and reported.
  const missing = new Set<string>();
  const runs = figure.runs(context).map((run) => {
    const known = run.config.methods.filter((m) => HARNESS_METHOD_IDS.includes(m));
    for (const m of run.config.methods) if (!known.includes(m)) missing.add(m);
    return known.length === run.config.methods.length
      ? run
      : { ...run, config: { ...run.config, methods: known } };
  });
  const missingMethods = [...missing];
  if (missingMethods.length > 0)
    options.log(`${figure.id}: methods not available in this build: ${missingMethods.join(", ")}`);
  const populations = new Map<string, LoadedDataset | undefined>();
  const rows: FigureRow[] = [];
  let done = 0;
  for (const run of runs.filter((r) => r.config.methods.length > 0)) {
    const key = `${run.config.data}|${run.config.d}|${run.config.c ?? ""}`;
    if (!populations.has(key))
      populations.set(key, await loadPopulation(run.config.data, run.config.d, run.config.c));
    const population = populations.get(key);
    const result = await runExperimentParallel(run.config, {
      ...(population ? { population } : {}),
      ...(options.workers ? { workers: options.workers } : {}),
    });
    for (const row of result.results) rows.push(toRow(figure, run, row));
    done++;
    options.log(
      `${figure.id}: ${done}/${runs.length} ${run.panel}${run.series ? ` ${run.series}` : ""}${run.x !== undefined ? ` x=${run.x}` : ""} (${((performance.now() - started) / 1000).toFixed(0)} s)`,
    );
  }
  const files = await writeFigure(figure, rows, options.out);
  return {
    ...figureHeader(figure, { reps, seed: options.seed, quick: options.quick }),
    missingMethods,
    rows,
    files,
    seconds: (performance.now() - started) / 1000,
  };
}

function toRow(
  figure: FigureDefinition,
  run: FigureRun,
  row: import("@calm-ldp/experiments").SummaryRow,
): FigureRow {
  return {
    panel: run.panel,
    series: run.series ? `${row.method} ${run.series}` : row.method,
    method: row.method,
    x: figure.x === "eps" ? row.eps : (run.x ?? row.eps),
    ...(run.y !== undefined ? { y: run.y } : figure.plot === "heatmap" ? { y: row.eps } : {}),
    eps: row.eps,
    n: run.config.n,
    d: run.config.d,
    k: run.config.k,
    sseMean: row.sseMean,
    sseStd: row.sseStd,
    tvdMean: row.tvdMean,
    tvdStd: row.tvdStd,
    seconds: row.seconds,
    reps: row.reps,
    failures: row.failures,
    ...(row.error ? { error: row.error } : {}),
  };
}

async function writeFigure(figure: FigureDefinition, rows: FigureRow[], out: string): Promise<string[]> {
  const { files, write } = await figureFiles(out);
  await write(`${figure.id}.csv`, toCsv(rows as unknown as Record<string, unknown>[]));
  const metric = figure.metric === "sse" ? "sseMean" : "tvdMean";
  const metricStd = figure.metric === "sse" ? "sseStd" : "tvdStd";
  const yTitle = figure.yTitle ?? (figure.metric === "sse" ? "SSE" : "TVD");
  if (figure.plot === "lines") {
    const spec = facetedLinesSpec(rows as unknown as Record<string, unknown>[], {
      x: "x",
      xTitle: figure.xTitle,
      y: metric,
      yStd: metricStd,
      yTitle,
      color: "series",
      facet: "panel",
      logX: figure.x === "n",
      title: figure.title,
    });
    await write(`${figure.id}.svg`, await renderSvg(spec));
  } else {
    const panels = [...new Set(rows.map((r) => r.panel))];
    for (const [i, panel] of panels.entries()) {
      const cells = rows
        .filter((r) => r.panel === panel && Number.isFinite(r[metric]))
        .map((r) => ({ x: r.x, y: r.y ?? r.eps, value: r[metric] }));
      const yTitle2 = panel.includes("l x m") ? "number of views m" : "eps";
      await write(
        `${figure.id}-${i + 1}.svg`,
        await renderSvg(
          heatmapSpec(cells, {
            xTitle: figure.xTitle,
            yTitle: yTitle2,
            valueTitle: yTitle,
            title: `${figure.title.split(":")[0]}: ${panel}`,
          }),
        ),
      );
    }
  }
  return files;
}
