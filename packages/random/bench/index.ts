/**
 * Throughput of the random sources and samplers. Run: `npx tsx bench/index.ts`.
 * Prints words/s for bulk fills, single-draw rates and binomial draws/s.
 */
import { latency, nsPer, perSecond, printTable } from "@calm-ldp/bench-support";
import { Bench } from "tinybench";
import { binomial, createBernoulli, cryptoRng, seededRng, uniformIntSampler } from "../src/index.js";

const WORDS = 1 << 20;
const buffer = new Uint32Array(WORDS);
const crypto = cryptoRng();
const seeded = seededRng(1);
let sink = 0;

const bench = new Bench({ time: 1500, warmupTime: 300 });
bench
  .add(`cryptoRng.fill ${WORDS} words`, () => {
    crypto.fill(buffer);
    sink ^= buffer[7]!;
  })
  .add(`seededRng.fill ${WORDS} words`, () => {
    seeded.fill(buffer);
    sink ^= buffer[7]!;
  })
  .add("seededRng.nextUint32 x 1e6", () => {
    for (let i = 0; i < 1_000_000; i++) sink ^= seeded.nextUint32();
  })
  .add("cryptoRng.nextUint32 x 1e6", () => {
    for (let i = 0; i < 1_000_000; i++) sink ^= crypto.nextUint32();
  });
const uniform7 = uniformIntSampler(7);
const coin = createBernoulli(0.3);
bench
  .add("uniformInt(7) x 1e6 (seeded)", () => {
    for (let i = 0; i < 1_000_000; i++) sink += uniform7(seeded);
  })
  .add("bernoulli(0.3) x 1e6 (seeded)", () => {
    for (let i = 0; i < 1_000_000; i++) sink += coin.sample(seeded) ? 1 : 0;
  })
  .add("binomial(20, 0.3) x 1e5 (inversion)", () => {
    for (let i = 0; i < 100_000; i++) sink += binomial(seeded, 20, 0.3);
  })
  .add("binomial(1e6, 0.3) x 1e5 (BTPE)", () => {
    for (let i = 0; i < 100_000; i++) sink += binomial(seeded, 1_000_000, 0.3);
  })
  .add("binomial(2^31, 0.5) x 1e5 (BTPE)", () => {
    for (let i = 0; i < 100_000; i++) sink += binomial(seeded, 2 ** 31, 0.5);
  });

await bench.run();
/** Items per operation, read from the task name's " x <count>" suffix or its word count. */
const itemsPer: Record<string, number> = {};
for (const task of bench.tasks) {
  const suffix = /x (1e\d)/.exec(task.name);
  itemsPer[task.name] = suffix ? Number(suffix[1]) : WORDS;
}
printTable(
  ["task", "ms/op", "items/s", "ns/item"],
  bench.tasks.map((task) => {
    const { mean } = latency(task);
    const items = itemsPer[task.name]!;
    return [task.name, mean.toFixed(3), perSecond(items, mean), nsPer(mean, items)];
  }),
);
console.log(`(checksum ${sink >>> 0})`);
