/**
 * Speed of maximum-entropy reconstruction. Run: `npx tsx bench/index.ts`.
 * Prints ms per query and sweeps for the reconstruction figures (8-way binary, 6-way
 * ternary and 10-way binary marginals from all their pairwise views) and for
 * CALM-shaped synopses (d = 32 binary attributes: 496 pairwise views, or 1,048
 * 8-way views; random 8-way queries).
 */
import { latency, perSecond, printTable } from "@calm-ldp/bench-support";
import {
  contingencyTable,
  createRecordStore,
  type MarginalTable,
  randomQueries,
  uniformSchema,
} from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { Bench } from "tinybench";
import { maxEntropy, randomPairViews } from "../src/index.js";

const rng = seededRng(7);
const POOL = 16;
const pools = {
  binary8: Array.from({ length: POOL }, () => randomPairViews(rng, 8, 2).views),
  ternary6: Array.from({ length: POOL }, () => randomPairViews(rng, 6, 3).views),
  binary10: Array.from({ length: POOL }, () => randomPairViews(rng, 10, 2).views),
};

// A CALM-shaped synopsis: exact views of a 2^16 x 32 binary store (a noisy chain).
const D = 32;
const N = 1 << 16;
const columns = Array.from({ length: D }, () => new Uint8Array(N));
for (let r = 0; r < N; r++) {
  let bit = rng.nextUint32() & 1;
  for (let i = 0; i < D; i++) {
    if (rng.nextUint32() < 0x50000000) bit ^= 1;
    columns[i]![r] = bit;
  }
}
const store = createRecordStore(uniformSchema(D), { columns });
const pairSets: number[][] = [];
for (let a = 0; a < D; a++) for (let b = a + 1; b < D; b++) pairSets.push([a, b]);
const pairSynopsis = pairSets.map((set) => contingencyTable(store, set));
const wideSynopsis = randomQueries(rng, D, 8, 1048).map((set) => contingencyTable(store, set));
const queries = randomQueries(rng, D, 8, 50);

let sink = 0;
let turn = 0;
const sweeps: Record<string, number[]> = {};
function solve(name: string, views: MarginalTable[], query: number[]) {
  const result = maxEntropy(views, query);
  (sweeps[name] ??= []).push(result.iterations);
  sink += result.table.cells[0]! + result.maxResidual;
}
const all = (k: number) => Array.from({ length: k }, (_, i) => i);

const bench = new Bench({ time: 2000, warmupTime: 300 });
bench
  .add("8-way binary from 28 pairwise views", () =>
    solve("8-way binary from 28 pairwise views", pools.binary8[turn++ % POOL]!, all(8)),
  )
  .add("6-way ternary from 15 pairwise views", () =>
    solve("6-way ternary from 15 pairwise views", pools.ternary6[turn++ % POOL]!, all(6)),
  )
  .add("10-way binary from 45 pairwise views", () =>
    solve("10-way binary from 45 pairwise views", pools.binary10[turn++ % POOL]!, all(10)),
  )
  .add("d=32: 8-way query, 496 pairwise views", () =>
    solve("d=32: 8-way query, 496 pairwise views", pairSynopsis, queries[turn++ % 50]!),
  )
  .add("d=32: 8-way query, 1048 8-way views", () =>
    solve("d=32: 8-way query, 1048 8-way views", wideSynopsis, queries[turn++ % 50]!),
  );
await bench.run();

printTable(
  ["task", "ms/query", "p50 ms", "queries/s", "mean sweeps"],
  bench.tasks.map((task) => {
    const { mean, p50 } = latency(task);
    const list = sweeps[task.name] ?? [];
    return [
      task.name,
      mean.toFixed(3),
      p50.toFixed(3),
      perSecond(1, mean),
      (list.reduce((s, x) => s + x, 0) / list.length).toFixed(1),
    ];
  }),
);
console.log(`(checksum ${sink})`);
