/**
 * Throughput of the Hadamard kernels. Run: `npx tsx bench/index.ts`.
 * Prints, per size, the best and median time of the in-place FWHT over repeated
 * runs (the figure to reach: 2^20 doubles in <= 30 ms), and rank/unrank and
 * marginal-from-coefficients rates. Every result feeds a checksum that is printed.
 */
import { nsPer, printTable, printThroughput } from "@calm-ldp/bench-support";
import { Bench } from "tinybench";
import { createCoefficientIndex, fwht, marginalFromRankedCoefficients } from "../src/index.js";

let sink = 0;

function fill(size: number): Float64Array {
  const data = new Float64Array(size);
  for (let i = 0; i < size; i++) data[i] = ((i * 2654435761) % 1000) / 1000;
  return data;
}

console.log("FWHT, in place (orthonormal scaling, so repeated runs stay bounded)");
const fwhtRows: string[][] = [];
for (const m of [10, 12, 14, 16, 18, 20, 22]) {
  const size = 2 ** m;
  const data = fill(size);
  const repeats = Math.max(15, Math.min(2000, Math.round(2 ** 26 / size)));
  for (let r = 0; r < 3; r++) fwht(data, { scaling: "orthonormal" }); // warm-up
  const times: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const start = process.hrtime.bigint();
    fwht(data, { scaling: "orthonormal" });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    sink += data[r % size]!;
  }
  times.sort((a, b) => a - b);
  const best = times[0]!;
  const median = times[times.length >> 1]!;
  fwhtRows.push([
    `2^${m}`,
    best.toFixed(3),
    median.toFixed(3),
    nsPer(best, size),
    (size / best / 1e3).toFixed(0),
  ]);
}
printTable(["size", "best ms", "median ms", "ns/element", "Melem/s"], fwhtRows);

const index = createCoefficientIndex(32, 8);
const ranks = Float64Array.from({ length: 4096 }, (_, i) =>
  Math.floor((i * 0.6180339887 * index.size) % index.size),
);
const alpha: number[] = [];
const small = createCoefficientIndex(16, 6);
const ranked = fill(small.size);
const out = new Float64Array(64);
const bench = new Bench({ time: 1000, warmupTime: 200 });
bench
  .add("unrank + rank x 4096 (d = 32, k = 8)", () => {
    for (let i = 0; i < ranks.length; i++) sink += index.rank(index.unrank(ranks[i]!, alpha));
  })
  .add("marginalFromRankedCoefficients x 100 (d = 16, k = 6)", () => {
    for (let i = 0; i < 100; i++)
      sink += marginalFromRankedCoefficients(ranked, small, [0, 3, 5, 8, 11, 15], out)[i & 63]!;
  });
await bench.run();
console.log();
printThroughput(bench.tasks, (name) => (name.includes("4096") ? 4096 : 100));
console.log(`(checksum ${sink})`);
