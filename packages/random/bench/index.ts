/**
 * Throughput of the random sources and samplers. Run: `npx tsx bench/index.ts`.
 * Prints words/s for bulk fills, single-draw rates and binomial draws/s.
 */
import { printThroughput } from "@calm-ldp/bench-support";
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
// Items per operation: the task name's " x <count>" suffix, or the words of a fill.
printThroughput(bench.tasks, (name) => {
  const suffix = /x (1e\d)/.exec(name);
  return suffix ? Number(suffix[1]) : WORDS;
});
console.log(`(checksum ${sink >>> 0})`);
