import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type ExperimentResult, errorVsEpsSpec, toCsv } from "@calm-ldp/experiments";
import { renderSvg } from "./render.js";

/** Files written for one experiment. */
export interface WrittenFiles {
  json: string;
  csv: string;
  runsCsv: string;
  svg: string[];
}

/**
 * Write an experiment's result into `dir` under `name`: the whole result as JSON,
 * the summary and the individual runs as CSV, and SSE-vs-eps and TVD-vs-eps plots as SVG.
 */
export async function writeExperiment(
  result: ExperimentResult,
  dir: string,
  name: string,
  title: string,
): Promise<WrittenFiles> {
  await mkdir(dir, { recursive: true });
  const json = join(dir, `${name}.json`);
  const csv = join(dir, `${name}.csv`);
  const runsCsv = join(dir, `${name}-runs.csv`);
  await writeFile(json, `${JSON.stringify(result, null, 2)}\n`);
  await writeFile(csv, toCsv(result.results as unknown as Record<string, unknown>[]));
  await writeFile(
    runsCsv,
    toCsv(result.runs.map((run) => ({ ...run, details: run.details ? JSON.stringify(run.details) : "" }))),
  );
  const svg: string[] = [];
  for (const metric of ["sse", "tvd"] as const) {
    const file = join(dir, `${name}-${metric}.svg`);
    await writeFile(
      file,
      await renderSvg(
        errorVsEpsSpec(result.results, { metric, title: `${title}: ${metric.toUpperCase()} vs eps` }),
      ),
    );
    svg.push(file);
  }
  return { json, csv, runsCsv, svg };
}
