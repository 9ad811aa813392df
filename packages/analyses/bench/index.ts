/**
 * Speed of the analyses. Run: `npx tsx bench/index.ts` (in packages/analyses).
 *
 * 1. Synthetic records from one released 6-way marginal (3^5 x 2 = 486 cells, the
 *    CALM classification marginal's shape), n = 2^20 and 2^22.
 * 2. Synthetic records from views: the 2-way marginals along a random tree over
 *    d = 32 binary attributes (a Chow-Liu model, decomposable) and CALM-like
 *    3-way views over d = 16 (every view a step), n = 2^20.
 * 3. One SVM training (libsvm-js, RBF, C = 1) on 1,024 / 2,048 / 4,096 synthetic
 *    one-hot records drawn from a 6-way marginal, plus the 243 predictions.
 * 4. Chow-Liu tree over d = 64 from a weight matrix; a chi-square test.
 */
import { generateBayesNet } from "@calm-ldp/datasets";
import { contingencyTable, createTable } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { Bench } from "tinybench";
import { chiSquareIndependence, chowLiuTree, sampleMarginal, sampleModel, viewsModel } from "../src/index.js";
import { classifyFromMarginal, loadLibsvm } from "../src/node.js";

let sink = 0;
const rng = seededRng(1);

// A 6-way marginal over five 3-valued features and a binary label, from a random Bayesian network.
const network = generateBayesNet(
  { n: 200_000, d: 6, cardinality: [3, 3, 3, 3, 3, 2], maxParents: 2, strength: 0.5 },
  seededRng(2),
  seededRng(3),
);
const six = contingencyTable(network.store, [0, 1, 2, 3, 4, 5]);

const tree = generateBayesNet(
  { n: 100_000, d: 32, maxParents: 1, strength: 0.6 },
  seededRng(4),
  seededRng(5),
);
const treeViews = tree.network.nodes
  .map((node, i) =>
    node.parents.length > 0 ? contingencyTable(tree.store, [node.parents[0]!, i]) : undefined,
  )
  .filter((t) => t !== undefined);
const treeModel = viewsModel(treeViews);

const net16 = generateBayesNet(
  { n: 100_000, d: 16, maxParents: 2, strength: 0.6 },
  seededRng(6),
  seededRng(7),
);
const calmViews = Array.from({ length: 24 }, (_, v) => {
  const a = v % 16;
  const b = (v * 5 + 3) % 16;
  const c = (v * 7 + 11) % 16;
  return contingencyTable(
    net16.store,
    [...new Set([a, b, c])].sort((x, y) => x - y),
  );
});
const calmModel = viewsModel(calmViews);
console.log(
  `# models: tree over d=32 (${treeModel.steps.length} steps, decomposable ${treeModel.decomposable}); ` +
    `24 3-way views over d=16 (${calmModel.steps.length} steps, decomposable ${calmModel.decomposable})`,
);

const rows: { task: string; items: number; unit: string; bestMs: number; meanMs: number }[] = [];
async function measure(task: string, items: number, unit: string, fn: () => unknown, iterations = 5) {
  const bench = new Bench({ iterations, warmupIterations: 1, time: 0 });
  bench.add(task, async () => {
    const out = await fn();
    sink += typeof out === "number" ? out : 1;
  });
  await bench.run();
  const task0 = bench.tasks[0]!;
  const result = task0.result as unknown as {
    latency?: { min: number; mean: number };
    min?: number;
    mean?: number;
  };
  const best = result.latency?.min ?? result.min ?? Number.NaN;
  const mean = result.latency?.mean ?? result.mean ?? Number.NaN;
  rows.push({ task, items, unit, bestMs: best, meanMs: mean });
}

for (const n of [2 ** 20, 2 ** 22])
  await measure(
    `sampleMarginal 6-way (486 cells), n=2^${Math.log2(n)}`,
    n,
    "records",
    () => sampleMarginal(six, n, rng).store.columns[0]!.length,
  );
await measure(
  "sampleModel tree of 31 2-way views, d=32, n=2^20",
  2 ** 20,
  "records",
  () => sampleModel(treeModel, 2 ** 20, rng).store.size,
);
await measure(
  "sampleModel 24 3-way views, d=16, n=2^20",
  2 ** 20,
  "records",
  () => sampleModel(calmModel, 2 ** 20, rng).store.size,
);
await loadLibsvm();
for (const size of [1024, 2048, 4096])
  await measure(
    `classifyFromMarginal: SVM on ${size} synthetic records + 243 predictions`,
    size,
    "records",
    async () => (await classifyFromMarginal(six, 5, rng, { trainingRecords: size })).supportVectors,
    3,
  );
const weights = new Float64Array(64 * 64).map(() => rng.nextFloat());
await measure(
  "chowLiuTree d=64",
  (64 * 63) / 2,
  "pairs",
  () => chowLiuTree(64, (i, j) => weights[i * 64 + j]!).weight,
);
const pair = createTable([0, 1], [3, 3]);
pair.cells.set([0.1, 0.2, 0.05, 0.1, 0.1, 0.05, 0.1, 0.2, 0.1]);
await measure("chiSquareIndependence 3x3", 1, "tests", () => chiSquareIndependence(pair, 1000).statistic, 50);

console.log("| task | best ms | mean ms | per item (best) | items/s (best) |");
console.log("| --- | ---: | ---: | ---: | ---: |");
for (const r of rows) {
  const perItem = (r.bestMs * 1e6) / r.items;
  console.log(
    `| ${r.task} | ${r.bestMs.toPrecision(3)} | ${r.meanMs.toPrecision(3)} | ${perItem >= 1e6 ? `${(perItem / 1e6).toFixed(2)} ms` : `${perItem.toFixed(0)} ns`} | ${((r.items / r.bestMs) * 1000).toExponential(2)} ${r.unit}/s |`,
  );
}
console.log(`(sink ${sink > 0 ? "ok" : "0"})`);
