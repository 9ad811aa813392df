/**
 * Regenerates the README table: for every v <= 32, t = 2..4, t <= k <= min(8, v),
 * the size of `coveringDesign(v, k, t)` over the Schönheim bound. Run:
 *   npx tsx bench/table.ts [--iterations N] [--time-limit MS]
 * Defaults: seed 1 and 1,000,000 annealing moves per cell (five times the package
 * default for small blocks), with a 5,000 ms wall-clock cap on the annealing of any
 * one cell as a safety net (so the table finishes in a few minutes on a shared
 * 2-core machine; the cells that hit the cap, whose result then depends on the
 * machine, are listed). Without capped cells the table is a deterministic function
 * of the code. Prints markdown on stdout, progress and timings on stderr.
 */
import { describeCoveringDesign, verify } from "../src/index.js";

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

const iterations = argument("--iterations", 1_000_000);
const timeLimitMs = argument("--time-limit", 5000);
const maxV = argument("--max-v", 32);
const started = performance.now();
const capped: string[] = [];
let cells = 0;
let optimal = 0;
let worst = { ratio: 0, cell: "" };
const lines: string[] = [];
for (let t = 2; t <= 4; t++) {
  const ks = Array.from({ length: 8 - t + 1 }, (_, i) => t + i);
  lines.push(`#### t = ${t}`, "");
  lines.push(`| v | ${ks.map((k) => `k = ${k}`).join(" | ")} |`);
  lines.push(`|---:|${ks.map(() => "---:").join("|")}|`);
  for (let v = t + 1; v <= maxV; v++) {
    const row: string[] = [];
    for (const k of ks) {
      if (k > v) {
        row.push("");
        continue;
      }
      const cellStart = performance.now();
      const result = describeCoveringDesign(v, k, t, { iterations, timeLimitMs });
      const ms = performance.now() - cellStart;
      if (!verify(result.blocks, v, t)) throw new Error(`C(${v},${k},${t}): not a covering`);
      if (ms >= timeLimitMs) capped.push(`(${v},${k},${t})`);
      const ratio = result.size / result.lowerBound;
      cells++;
      if (result.size === result.lowerBound) optimal++;
      if (ratio > worst.ratio)
        worst = { ratio, cell: `C(${v},${k},${t}) = ${result.size} / ${result.lowerBound}` };
      row.push(
        result.size === result.lowerBound ? `**${result.size}**` : `${result.size} / ${result.lowerBound}`,
      );
      if (ms > 500)
        process.stderr.write(
          `C(${v},${k},${t}) = ${result.size} / ${result.lowerBound} in ${ms.toFixed(0)} ms\n`,
        );
    }
    lines.push(`| ${v} | ${row.join(" | ")} |`);
  }
  lines.push("");
}
const seconds = (performance.now() - started) / 1000;
console.log(lines.join("\n"));
console.log(
  `${cells} cells, ${optimal} at the Schönheim bound (bold), worst ratio ${worst.ratio.toFixed(3)} (${worst.cell}); ` +
    `${iterations} annealing moves per cell, ${timeLimitMs} ms cap (hit by ${capped.length} cells${capped.length ? `: ${capped.join(" ")}` : ""}); ` +
    `${seconds.toFixed(0)} s in total.`,
);
