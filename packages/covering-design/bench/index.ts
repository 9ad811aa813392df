/**
 * Cost of covering designs at the sizes CALM's parameter choice asks for. Run:
 *   npx tsx bench/index.ts
 * For each (v, k, t) = (d attributes, view size l, query size): the cold time of
 * `coverDesignSize` with the default options (caches cleared; best of 3 runs, the
 * machine is shared), the size over the Schönheim bound and how it was obtained;
 * then the cost of a cached call and of `verify`. Results feed a printed checksum.
 */
import { printTable } from "@calm-ldp/bench-support";
import {
  clearCoveringDesignCache,
  coverDesignSize,
  coveringDesign,
  describeCoveringDesign,
  verify,
} from "../src/index.js";

const cases: [number, number, number][] = [
  [8, 4, 3],
  [16, 4, 3],
  [16, 5, 3],
  [16, 6, 3],
  [32, 4, 3],
  [32, 5, 3],
  [32, 6, 3],
  [32, 8, 3],
  [16, 5, 4],
  [32, 6, 4],
  [16, 8, 6],
  [32, 8, 6],
  [32, 10, 6],
  [32, 10, 8],
  [64, 6, 3],
];
let checksum = 0;
console.log("cold coverDesignSize, default options (best of 3, caches cleared before each run)");
const rows: string[][] = [];
for (const [v, k, t] of cases) {
  let best = Number.POSITIVE_INFINITY;
  let size = 0;
  for (let run = 0; run < 3; run++) {
    clearCoveringDesignCache();
    const start = performance.now();
    size = coverDesignSize(v, k, t);
    best = Math.min(best, performance.now() - start);
  }
  checksum += size;
  const detail = size <= 2 ** 18 ? describeCoveringDesign(v, k, t) : undefined;
  const bound = detail?.lowerBound ?? Number.NaN;
  rows.push([
    `(${v},${k},${t})`,
    String(size),
    String(bound),
    (size / bound).toFixed(2),
    best.toFixed(0),
    detail?.construction.slice(0, 90) ?? "",
  ]);
}
printTable(["(v,k,t)", "size", "bound", "ratio", "best ms", "construction"], rows, { left: [0, 5] });

const calls = 1_000_000;
let start = performance.now();
for (let i = 0; i < calls; i++) checksum += coverDesignSize(16, 5, 3);
const cachedNs = ((performance.now() - start) * 1e6) / calls;
const blocks = coveringDesign(32, 4, 3);
start = performance.now();
let ok = 0;
for (let i = 0; i < 20; i++) ok += verify(blocks, 32, 3) ? 1 : 0;
const verifyMs = (performance.now() - start) / 20;
console.log();
console.log(`cached coverDesignSize(16, 5, 3): ${cachedNs.toFixed(0)} ns per call`);
console.log(`verify(SQS(32): 1240 blocks, 4960 triples): ${verifyMs.toFixed(2)} ms (${ok}/20 true)`);
console.log(`(checksum ${checksum})`);
