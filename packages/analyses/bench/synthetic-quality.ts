/**
 * How close synthetic records come to the data, by model. Run: `npx tsx bench/synthetic-quality.ts`
 * (in packages/analyses). Data: 2^16 records of a random Bayesian network (2 parents per node,
 * strength 0.6, network seed 3), d = 8 and 16 binary attributes; CALM releases for k = 3 at
 * eps = 0.5, 1, 2 (seeded). Printed: mean TVD over all 3-way marginals between the truth and
 * (maxent) CALM's own maximum-entropy answers; the marginals of 2^16 records drawn from
 * (views) `viewsModel(synopsis.views)`, (tree) a Chow-Liu tree of CALM's 2-way answers,
 * (synopsis2/3) `synopsisModel` with 2 or 3 parents; and (truth-bn2) `synopsisModel` over the
 * true marginals (the model's own approximation error plus sampling).
 */
import { createMethod, runMethod } from "@calm-ldp/baselines";
import type { CalmSynopsis } from "@calm-ldp/calm-core";
import { generateFromSpec } from "@calm-ldp/datasets";
import { allQueries, contingencyTable, tvd } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { chowLiuTree, mutualInformation, sampleModel, synopsisModel, viewsModel } from "../src/index.js";

for (const d of [8, 16])
  for (const eps of [0.5, 1, 2]) {
    const { store } = generateFromSpec("synthetic:bn?strength=0.6&parents=2&seed=3", {
      n: 2 ** 16,
      d,
      seed: 1,
    });
    const calm = createMethod("calm");
    const plan = calm.plan({ schema: store.schema, n: store.size, eps, k: 3 });
    const syn = calm.estimate(
      plan,
      runMethod(calm, plan, store, seededRng(2)).aggregator,
    ) as unknown as CalmSynopsis;
    const q3 = allQueries(d, 3);
    const truth = q3.map((q) => contingencyTable(store, q));
    const mean = (f: (q: number[], i: number) => number) =>
      q3.reduce((s, q, i) => s + f(q, i), 0) / q3.length;
    const rec = sampleModel(viewsModel(syn.views), 2 ** 16, seededRng(3)).store;
    const pairs = allQueries(d, 2);
    const mi = new Map(pairs.map((p) => [p.join(), mutualInformation(syn.query(p))]));
    const tree = chowLiuTree(d, (i, j) => mi.get(`${i},${j}`)!);
    const trec = sampleModel(
      viewsModel(tree.edges.map(([i, j]) => syn.query([i, j]))),
      2 ** 16,
      seededRng(4),
    ).store;
    const t = performance.now();
    const sm = synopsisModel(syn, new Array(d).fill(2));
    const tBuild = performance.now() - t;
    const srec = sampleModel(sm, 2 ** 16, seededRng(5)).store;
    const sm3 = synopsisModel(syn, new Array(d).fill(2), { maxParents: 3 });
    const srec3 = sampleModel(sm3, 2 ** 16, seededRng(5)).store;
    const own = sampleModel(
      synopsisModel({ query: (q) => contingencyTable(store, q) }, new Array(d).fill(2)),
      2 ** 16,
      seededRng(6),
    ).store;
    console.log(
      `d ${d} eps ${eps}`,
      "maxent",
      mean((q, i) => tvd(syn.query(q).cells, truth[i]!.cells)).toFixed(4),
      "views",
      mean((q, i) => tvd(contingencyTable(rec, q).cells, truth[i]!.cells)).toFixed(4),
      "tree",
      mean((q, i) => tvd(contingencyTable(trec, q).cells, truth[i]!.cells)).toFixed(4),
      "synopsis2",
      mean((q, i) => tvd(contingencyTable(srec, q).cells, truth[i]!.cells)).toFixed(4),
      `(${tBuild.toFixed(0)} ms)`,
      "synopsis3",
      mean((q, i) => tvd(contingencyTable(srec3, q).cells, truth[i]!.cells)).toFixed(4),
      "truth-bn2",
      mean((q, i) => tvd(contingencyTable(own, q).cells, truth[i]!.cells)).toFixed(4),
    );
  }
