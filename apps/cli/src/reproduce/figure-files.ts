import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** The fields every figure result (a paper figure or a custom one) starts with, as `figureHeader` builds them. */
export interface FigureResultHeader {
  figure: string;
  paper: string;
  title: string;
  claim: string;
  substitution?: string;
  reps: number;
  seed: number;
  quick: boolean;
}

/** What every reproduced figure's result starts with: which figure, the paper's claim, the run's settings. */
export function figureHeader(
  figure: { id: string; paper: string; title: string; claim: string; substitution?: string },
  run: { reps: number; seed: number; quick: boolean },
): FigureResultHeader {
  return {
    figure: figure.id,
    paper: figure.paper,
    title: figure.title,
    claim: figure.claim,
    ...(figure.substitution ? { substitution: figure.substitution } : {}),
    reps: run.reps,
    seed: run.seed,
    quick: run.quick,
  };
}

/** A writer of a figure's output files into `dir` (created), remembering their paths in `files`. */
export async function figureFiles(
  dir: string,
): Promise<{ files: string[]; write(name: string, text: string): Promise<void> }> {
  await mkdir(dir, { recursive: true });
  const files: string[] = [];
  return {
    files,
    async write(name, text) {
      const file = join(dir, name);
      await writeFile(file, text);
      files.push(file);
    },
  };
}
