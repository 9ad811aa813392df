/**
 * calm vs calm-plus on the SAME reports: per repetition, one population sample,
 * one set of random k-way queries, one count-level simulation of CALM's plan;
 * then every estimator answers from that aggregator. Prints mean SSE per
 * estimator and the ratio calm / estimator with its spread over repetitions.
 *
 * Run (from packages/experiments):
 *   nice -n 15 npx tsx bench/calm-plus.ts --data adult --d 15 --k 3 --c 3 --n 65536 \
 *     --eps 0.2,0.5,1,2 --reps 5 [--variants mixture,mixture-uniform,order,block,none,mixture-indep] [--seed 1]
 * Data: adult | nltcs | msnbc (from /work/shared/datasets or --root).
 */
import {
  type CalmPlusShrinkage,
  estimateCalm,
  estimateCalmPlus,
  planCalm,
  simulateCalm,
} from "@calm-ldp/calm-core";
import { contingencyTable, sse } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { maxEntropy } from "@calm-ldp/reconstruction";
import { argument, benchPopulation, calmPlusArguments, repetitionSample, reportsSeed } from "./support.js";

const { population, d, label } = await benchPopulation({ data: "adult", d: 15 });
const { k, n, epsList, reps, seed, queries } = calmPlusArguments("0.2,0.5,1,2");
// A variant is a shrinkage, optionally with "-indep" (unmeasured pairs left to max
// entropy) and/or "-uniform" (data-independent coefficient variances, one pass)
// and/or "-joint" (the joint graphical-model fit to the shrunk coefficients) or
// "-jointraw" (the joint fit to the views' raw coefficients, plain Private-PGM), with
// "-maxent": answers by max entropy over the model's views plus the prior pairs; "-prodt": orders >= 3
// shrunk toward the product of the one-way marginals (interactionTarget "independence", the default
// before session 4) instead of the max-entropy extension of their (r-1)-way marginals.
// One-way prior of attributes with 3..4 categories (oneWayPrior): default "hybrid" (s * contrasts +
// (1 - s) * fitted shapes); "-shape": the permutation-invariant shape prior alone; "-contrasts": every
// contrast under the order's scale mixture (the default before session 5).
// One-way evidence (oneWayEvidence): default "pairs" (the one-way marginals also fitted to the
// measured pairs' interaction coefficients); "-oneway": the views' one-way coefficients only
// (the default before session 6). "-center": the pairs' centre always kept (pairCenter "always",
// the default before session 6's centre test).
const variants = argument("variants", "mixture").split(",");
const variantOptions = (variant: string) => {
  const [shrinkage, ...flags] = variant.split("-");
  return {
    shrinkage: shrinkage as CalmPlusShrinkage,
    unmeasuredPairs: flags.includes("indep") ? ("independence" as const) : ("prior" as const),
    variance: flags.includes("uniform") ? ("uniform" as const) : ("plugin" as const),
    interactionTarget: flags.includes("prodt") ? ("independence" as const) : ("maxent" as const),
    oneWayPrior: flags.includes("contrasts")
      ? ("contrasts" as const)
      : flags.includes("shape")
        ? ("shape" as const)
        : ("hybrid" as const),
    oneWayEvidence: flags.includes("oneway") ? ("one-way" as const) : ("pairs" as const),
    pairCenter: flags.includes("center") ? ("always" as const) : ("test" as const),
    estimator:
      flags.includes("joint") || flags.includes("jointraw") ? ("joint" as const) : ("pooled" as const),
    joint: {
      targets: flags.includes("jointraw") ? ("raw" as const) : ("shrunk" as const),
      answers: flags.includes("maxent") ? ("maxent" as const) : ("model" as const),
    },
  };
};

console.log(
  `calm vs calm-plus, same reports: ${label} k=${k} n=${n}, ${reps} reps, ${queries} queries, seed ${seed}`,
);
const names = ["calm", ...variants.map((v) => `plus-${v}`), "uni", "exact-views"];
console.log(`eps   ${names.map((x) => x.padStart(13)).join("")}   ratios calm/x (mean, min..max over reps)`);
for (const eps of epsList) {
  const sums = names.map(() => 0);
  const ratios = variants.map(() => [] as number[]);
  const times = variants.map(() => 0);
  const steps = variants.map(() => 0);
  const unconverged = variants.map(() => 0);
  const fallbacks = variants.map(() => 0);
  for (let rep = 0; rep < reps; rep++) {
    const { store, qs, truths } = repetitionSample(population, { n, d, k, queries, seed, rep });
    const plan = planCalm({ schema: store.schema, n, eps, k });
    const aggregator = simulateCalm(plan, store, seededRng(reportsSeed(seed, rep, eps)));
    const score = (query: (q: number[]) => { cells: Float64Array }) =>
      qs.reduce((acc, q, i) => acc + sse(query(q).cells, truths[i]!), 0) / qs.length;
    const base = score(estimateCalm(plan, aggregator).query);
    sums[0]! += base;
    // Floor of any estimator on this plan's views: the exact view marginals, answered by max entropy.
    const exactViews = plan.views.map((view) => contingencyTable(store, view.attributes));
    sums[names.length - 1]! += score((q) => maxEntropy(exactViews, q).table);
    sums[names.length - 2]! += score((q) => ({
      cells: new Float64Array(truths[qs.indexOf(q)]!.length).fill(1 / truths[qs.indexOf(q)]!.length),
    }));
    if (rep === 0)
      process.stdout.write(`[eps ${eps}: l=${plan.l} m=${plan.m} oracle ${plan.views[0]!.oracle}] `);
    variants.forEach((variant, i) => {
      const started = performance.now();
      const synopsis = estimateCalmPlus(plan, aggregator, variantOptions(variant));
      const value = score(synopsis.query);
      times[i]! += performance.now() - started;
      if (synopsis.joint) {
        if (synopsis.joint.fallback) fallbacks[i]!++;
        else {
          steps[i]! += synopsis.joint.iterations!;
          if (!synopsis.joint.converged) unconverged[i]!++;
        }
      }
      sums[i + 1]! += value;
      ratios[i]!.push(base / value);
    });
  }
  const means = sums.map((s) => s / reps);
  const ratioText = ratios
    .map((r) => {
      const mean = means[0]! / means[ratios.indexOf(r) + 1]!;
      return `${mean.toFixed(2)} (${Math.min(...r).toFixed(2)}..${Math.max(...r).toFixed(2)})`;
    })
    .join("  ");
  console.log(
    `${String(eps).padEnd(5)} ${means.map((x) => x.toExponential(3).padStart(13)).join("")}   ${ratioText}`,
  );
  // Per variant: mean ms (estimate + queries) per rep; joint fits: mean steps, unconverged and fallback reps.
  console.log(
    `      ${variants
      .map(
        (v, i) =>
          `${v}: ${(times[i]! / reps).toFixed(0)} ms` +
          (v.includes("joint")
            ? ` steps ${(steps[i]! / Math.max(1, reps - fallbacks[i]!)).toFixed(0)} unconverged ${unconverged[i]} fallback ${fallbacks[i]}`
            : ""),
      )
      .join("; ")}`,
  );
}
