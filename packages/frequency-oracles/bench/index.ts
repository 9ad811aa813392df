/**
 * Speed of every frequency oracle on the benchmark workload: n = 1e6 users with
 * Zipf(1.1) values over D = 64, eps = 1. Run: `npx tsx bench/index.ts` (add
 * `--quick` for n = 1e5). Prints ms per operation (mean and best of the timed
 * iterations), reports per second and ns per report, for:
 * - the per-user path (client perturbation with cryptoRng + aggregation + estimate),
 * - the client and the server separately for GRR, OUE and OLH,
 * - the one-report-at-a-time API (perturb + add per user, 1e5 users),
 * - the count-level simulation (O(D) per group) + estimate.
 */
import { latency, nsPer, perSecond, printTable, runtime } from "@calm-ldp/bench-support";
import { cryptoRng, seededRng } from "@calm-ldp/random";
import { Bench } from "tinybench";
import { createOracle, type FrequencyOracle, ORACLE_NAMES, valueCounts, zipfValues } from "../src/index.js";

const quick = process.argv.includes("--quick");
const n = quick ? 100_000 : 1_000_000;
const domain = 64;
const eps = 1;
const values = zipfValues(seededRng(1), n, domain);
const counts = valueCounts(values, domain);
const binaryValues = values.map((v) => v & 1);
const binaryCounts = valueCounts(binaryValues, 2);
let sink = 0;

const bench = new Bench({ iterations: 5, time: 0, warmupIterations: 1, warmupTime: 0 });
const items: Record<string, number> = {};
const add = (name: string, count: number, fn: () => void) => {
  items[name] = count;
  bench.add(name, fn);
};

const oracles = new Map<string, FrequencyOracle>();
for (const name of ORACLE_NAMES)
  oracles.set(name, createOracle(name, { eps, domain: name === "rr" ? 2 : domain }));
const data = (name: string) => (name === "rr" ? binaryValues : values);

for (const [name, oracle] of oracles) {
  add(`${name} per-user: perturb + aggregate + estimate`, n, () => {
    const aggregator = oracle.createAggregator();
    aggregator.addBatch(oracle.perturbBatch(data(name), cryptoRng()));
    sink += aggregator.estimate()[0]!;
  });
}
for (const name of ["grr", "oue", "olh"]) {
  const oracle = oracles.get(name)!;
  const batch = oracle.perturbBatch(values, cryptoRng());
  add(`${name} client only: perturbBatch (cryptoRng)`, n, () => {
    sink += oracle.perturbBatch(values, cryptoRng()).words[0]!;
  });
  add(`${name} server only: addBatch + estimate`, n, () => {
    const aggregator = oracle.createAggregator();
    aggregator.addBatch(batch);
    sink += aggregator.estimate()[0]!;
  });
  add(`${name} one report at a time: perturb + add, 1e5 users`, 100_000, () => {
    const aggregator = oracle.createAggregator();
    const rng = cryptoRng();
    for (let i = 0; i < 100_000; i++) aggregator.add(oracle.perturb(values[i]!, rng));
    sink += aggregator.estimate()[0]!;
  });
}
const simulationRng = seededRng(2);
for (const [name, oracle] of oracles) {
  add(`${name} simulated: simulateCounts + estimate`, n, () => {
    const truth = name === "rr" ? binaryCounts : counts;
    sink += oracle.estimate(oracle.simulateCounts(truth, simulationRng), n)[0]!;
  });
}

await bench.run();
console.log(`n = ${n}, D = ${domain} (rr: D = 2), eps = ${eps}, Zipf(1.1); ${runtime()}`);
printTable(
  ["task", "mean ms", "best ms", "reports/s", "ns/report"],
  bench.tasks.map((task) => {
    const { mean, best } = latency(task);
    const count = items[task.name]!;
    return [task.name, mean.toFixed(2), best.toFixed(2), perSecond(count, best), nsPer(best, count, 1)];
  }),
);
console.log(`(checksum ${sink.toFixed(3)})`);
