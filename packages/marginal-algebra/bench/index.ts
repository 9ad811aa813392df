/**
 * Speed of the table kernels. Run: `npx tsx bench/index.ts`.
 * Prints ms per operation and items (records or cells) per second for contingency
 * tables, projection, consistency, non-negativity and the alternating loop.
 */
import { printThroughput } from "@calm-ldp/bench-support";
import { seededRng } from "@calm-ldp/random";
import { Bench } from "tinybench";
import {
  contingencyTable,
  createRecordStore,
  type MarginalTable,
  makeConsistent,
  makeNonNegative,
  postProcessViews,
  projectTable,
  randomQueries,
  ripple,
  sse,
  uniformSchema,
} from "../src/index.js";

const rng = seededRng(2024);
const N = 1 << 20;
const D = 32;

/** A store of N records over D attributes of cardinality c, each attribute a noisy copy of the previous one. */
function chainStore(c: number) {
  const columns = Array.from({ length: D }, () => new Uint8Array(N));
  const words = new Uint32Array(N);
  rng.fill(words);
  for (let r = 0; r < N; r++) columns[0]![r] = words[r]! % c;
  for (let i = 1; i < D; i++) {
    rng.fill(words);
    const previous = columns[i - 1]!;
    const column = columns[i]!;
    for (let r = 0; r < N; r++) column[r] = words[r]! < 0x50000000 ? (words[r]! >>> 8) % c : previous[r]!;
  }
  return createRecordStore(uniformSchema(D, c), { columns });
}

const binary = chainStore(2);
const ternary = chainStore(3);
const queries8 = randomQueries(rng, D, 8, 64);
let sink = 0;
let q = 0;

/** Noisy views: exact views of the binary store plus N(0, sigma^2) per cell (Box-Muller). */
function noisy(sets: readonly number[][], sigma: number): MarginalTable[] {
  return sets.map((set) => {
    const view = contingencyTable(binary, set);
    for (let u = 0; u < view.cells.length; u++) {
      const g = Math.sqrt(-2 * Math.log(1 - rng.nextFloat())) * Math.cos(2 * Math.PI * rng.nextFloat());
      view.cells[u] += sigma * g;
    }
    return view;
  });
}
const pairs: number[][] = [];
for (let a = 0; a < D; a++) for (let b = a + 1; b < D; b++) pairs.push([a, b]);
const pairViews = noisy(pairs, 0.003);
const wideViews = noisy(randomQueries(rng, D, 8, 1048), 0.003);
const midViews = noisy(randomQueries(rng, D, 4, 300), 0.003);
const table8 = contingencyTable(binary, queries8[0]!);
const noisy256 = noisy([queries8[1]!], 0.003)[0]!;

const bench = new Bench({ time: 1500, warmupTime: 300 });
bench
  .add("contingencyTable 2^20 x 32 binary, 8-way", () => {
    sink += contingencyTable(binary, queries8[q++ % 64]!).cells[0]!;
  })
  .add("contingencyTable 2^20 x 32 ternary, 8-way", () => {
    sink += contingencyTable(ternary, queries8[q++ % 64]!).cells[0]!;
  })
  .add("projectTable 256 -> 8 cells", () => {
    sink += projectTable(table8, table8.attributes.slice(2, 5)).cells[0]!;
  })
  .add("makeConsistent 496 pair views (components)", () => {
    sink += makeConsistent(pairViews)[0]!.cells[0]!;
  })
  .add("makeConsistent 496 pair views (steps)", () => {
    sink += makeConsistent(pairViews, { method: "steps" })[0]!.cells[0]!;
  })
  .add("makeConsistent 300 4-way views (components)", () => {
    sink += makeConsistent(midViews)[0]!.cells[0]!;
  })
  .add("makeConsistent 300 4-way views (steps)", () => {
    sink += makeConsistent(midViews, { method: "steps" })[0]!.cells[0]!;
  })
  .add("makeConsistent 1048 8-way views (components)", () => {
    sink += makeConsistent(wideViews)[0]!.cells[0]!;
  })
  .add("norm-sub 256 cells", () => {
    sink += makeNonNegative(noisy256, { method: "norm-sub" }).cells[0]!;
  })
  .add("norm-cut 256 cells", () => {
    sink += makeNonNegative(noisy256, { method: "norm-cut" }).cells[0]!;
  })
  .add("ripple 256 cells", () => {
    sink += makeNonNegative(noisy256, { method: "ripple" }).cells[0]!;
  })
  .add("postProcessViews 496 pair views (norm-sub, cap 30)", () => {
    sink += postProcessViews(pairViews, { method: "norm-sub" }).rounds;
  })
  .add("postProcessViews 1048 8-way views (norm-sub, cap 30)", () => {
    sink += postProcessViews(wideViews, { method: "norm-sub" }).rounds;
  })
  .add("postProcessViews 1048 8-way views (ripple, cap 30)", () => {
    sink += postProcessViews(wideViews, { method: "ripple" }).rounds;
  });

const items: Record<string, number> = {
  "contingencyTable 2^20 x 32 binary, 8-way": N,
  "contingencyTable 2^20 x 32 ternary, 8-way": N,
  "projectTable 256 -> 8 cells": 256,
  "makeConsistent 496 pair views (components)": 496 * 4,
  "makeConsistent 496 pair views (steps)": 496 * 4,
  "makeConsistent 300 4-way views (components)": 300 * 16,
  "makeConsistent 300 4-way views (steps)": 300 * 16,
  "makeConsistent 1048 8-way views (components)": 1048 * 256,
  "norm-sub 256 cells": 256,
  "norm-cut 256 cells": 256,
  "ripple 256 cells": 256,
  "postProcessViews 496 pair views (norm-sub, cap 30)": 496 * 4,
  "postProcessViews 1048 8-way views (norm-sub, cap 30)": 1048 * 256,
  "postProcessViews 1048 8-way views (ripple, cap 30)": 1048 * 256,
};

await bench.run();
console.log("(items: records or cells)");
printThroughput(bench.tasks, (name) => items[name]!);
const wide = postProcessViews(wideViews, { method: "norm-sub" });
const narrow = postProcessViews(pairViews, { method: "norm-sub" });
console.log(
  `postProcessViews rounds: pairs ${narrow.rounds} (converged ${narrow.converged}), 8-way ${wide.rounds} (converged ${wide.converged}, maxInconsistency ${wide.maxInconsistency.toExponential(2)})`,
);

// Ripple's threshold: time and SSE against the exact view, on the noisy 256-cell view.
const exact = contingencyTable(binary, queries8[1]!);
console.log("ripple threshold (noisy 8-way view, sigma 0.003):");
for (const threshold of [1e-12, 1e-9, 1e-6, 1e-4]) {
  const runs = 50;
  const start = performance.now();
  let out = noisy256;
  for (let r = 0; r < runs; r++) out = ripple(noisy256, { threshold });
  const ms = (performance.now() - start) / runs;
  console.log(
    `  threshold ${threshold.toExponential(0)}: ${ms.toFixed(4)} ms, SSE ${sse(out, exact).toExponential(5)}`,
  );
}
console.log(
  `  (norm-sub SSE ${sse(makeNonNegative(noisy256, { method: "norm-sub" }), exact).toExponential(5)})`,
);

// One view alone (no consistency): mean SSE over 200 random 8-way distributions
// with N(0, sigma^2) noise per cell, by method.
for (const sigma of [0.001, 0.003, 0.0085]) {
  const totals: Record<string, number> = { ripple: 0, "norm-sub": 0, "norm-cut": 0 };
  for (let t = 0; t < 200; t++) {
    const truth = contingencyTable(binary, queries8[t % 64]!);
    const noisyView = {
      ...truth,
      cells: truth.cells.map(
        (x) =>
          x + sigma * Math.sqrt(-2 * Math.log(1 - rng.nextFloat())) * Math.cos(2 * Math.PI * rng.nextFloat()),
      ),
    };
    for (const method of ["ripple", "norm-sub", "norm-cut"] as const) {
      totals[method]! += sse(makeNonNegative(noisyView, { method }), truth) / 200;
    }
  }
  console.log(
    `single 8-way view, sigma ${sigma}: mean SSE ripple ${totals.ripple!.toExponential(4)}, norm-sub ${totals["norm-sub"]!.toExponential(4)}, norm-cut ${totals["norm-cut"]!.toExponential(4)}`,
  );
}
console.log(`(checksum ${sink})`);
