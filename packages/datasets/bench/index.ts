/**
 * Load and generation speed of @calm-ldp/datasets. Run: `npx tsx bench/index.ts` (in packages/datasets).
 * Real datasets are read in place from /work/shared/datasets (override with DATASETS_DIR); an absent file is
 * reported and skipped. Prints, per task: the first (cold) call's wall time, then mean and best over repeated
 * calls, records, records/s (from the best) and ns per value (record x attribute).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { latency, nsPer, perSecond, printTable, runtime } from "@calm-ldp/bench-support";
import { seededRng } from "@calm-ldp/random";
import { Bench } from "tinybench";
import type { LoadedDataset } from "../src/index.js";
import { generateBayesNet, generateIid, sampleUsers } from "../src/index.js";
import { loadAdult, loadCsv, loadMsnbc, loadNltcs, loadTransactions } from "../src/node.js";

const ROOT =
  process.env.CALM_LDP_DATA ?? fileURLToPath(new URL("../../../../shared/datasets", import.meta.url));
const N = 1 << 20;
const D = 32;

interface Task {
  name: string;
  path?: string;
  run(): Promise<LoadedDataset> | LoadedDataset;
}

const adultDir = join(ROOT, "adult");
const tasks: Task[] = [
  {
    name: "msnbc 989,818 users x 17 (.seq.gz)",
    path: join(ROOT, "msnbc/msnbc990928.seq.gz"),
    run: () => loadMsnbc(join(ROOT, "msnbc/msnbc990928.seq.gz")),
  },
  { name: "adult 48,842 rows, c = 3", path: adultDir, run: () => loadAdult(adultDir, { c: 3 }) },
  {
    name: "nltcs.csv 21,574 x 16",
    path: join(ROOT, "nltcs/nltcs.csv"),
    run: () => loadNltcs(join(ROOT, "nltcs/nltcs.csv")),
  },
  {
    name: "retail.dat 88,162, top d = 32 items",
    path: join(ROOT, "retail/retail.dat"),
    run: () => loadTransactions(join(ROOT, "retail/retail.dat"), { d: 32 }),
  },
  {
    name: "BMS1.dat 59,602, top d = 32 items",
    path: join(ROOT, "bms_webview/BMS1.dat"),
    run: () => loadTransactions(join(ROOT, "bms_webview/BMS1.dat"), { d: 32 }),
  },
  {
    name: "BMS2.txt (SPMF) 77,512, top d = 32",
    path: join(ROOT, "bms_webview/BMS2.txt"),
    run: () => loadTransactions(join(ROOT, "bms_webview/BMS2.txt"), { d: 32 }),
  },
  {
    name: "csv ml-100k u.data 100,000 (inferred)",
    path: join(ROOT, "movielens/ml-100k/u.data"),
    run: () =>
      loadCsv(join(ROOT, "movielens/ml-100k/u.data"), {
        header: false,
        delimiter: "\t",
        maxCategories: 100_000,
      }),
  },
  { name: `iid binary p = 0.3, 2^20 x ${D}`, run: () => generateIid({ n: N, d: D, p: 0.3 }, seededRng(1)) },
  { name: `iid c = 3, 2^20 x ${D}`, run: () => generateIid({ n: N, d: D, cardinality: 3 }, seededRng(1)) },
  {
    name: `bn binary, 2 parents, 2^20 x ${D}`,
    run: () => generateBayesNet({ n: N, d: D, maxParents: 2, strength: 0.5 }, seededRng(1)),
  },
  {
    name: `bn c = 3, 2 parents, 2^20 x ${D}`,
    run: () => generateBayesNet({ n: N, d: D, cardinality: 3, maxParents: 2 }, seededRng(1)),
  },
];

const population = generateIid({ n: 45_222, d: 8, cardinality: 3 }, seededRng(2));
tasks.push({
  name: "sampleUsers 40,000 of 45,222 x 8 (w/o repl.)",
  run: () => sampleUsers(population, 40_000, seededRng(3)),
});
tasks.push({
  name: "sampleUsers 2^18 from 45,222 x 8 (with repl.)",
  run: () => sampleUsers(population, 1 << 18, seededRng(3)),
});

let sink = 0;
const sizes: Record<string, { rows: number; values: number }> = {};
/** Wall time of each task's first call in this process (cold: includes compilation). */
const first: Record<string, number> = {};
const bench = new Bench({ time: 2000, warmupTime: 300, iterations: 5 });
for (const task of tasks) {
  if (task.path !== undefined && !existsSync(task.path)) {
    console.log(`skipped: ${task.name} (absent: ${task.path})`);
    continue;
  }
  const start = performance.now();
  const data = await task.run();
  first[task.name] = performance.now() - start;
  sink += data.store.size;
  bench.add(task.name, async () => {
    const data = await task.run();
    sizes[task.name] = { rows: data.store.size, values: data.store.size * data.store.columns.length };
    sink += data.store.columns[0]![data.store.size - 1]!;
  });
}
await bench.run();

console.log(runtime());
printTable(
  ["task", "first ms", "mean ms", "best ms", "records", "records/s", "ns/value"],
  bench.tasks.map((task) => {
    const { mean, best } = latency(task);
    const size = sizes[task.name]!;
    return [
      task.name,
      first[task.name]!.toFixed(1),
      mean.toFixed(1),
      best.toFixed(1),
      String(size.rows),
      perSecond(size.rows, best),
      nsPer(best, size.values),
    ];
  }),
);
console.error(`(checksum ${sink})`);
