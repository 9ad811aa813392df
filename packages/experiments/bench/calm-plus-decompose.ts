/**
 * Where calm-plus's SSE on the k-way answers comes from (l = 2 plans): every query is
 * answered by max entropy over its pairs' tables, built as calm-plus has them (the
 * measured pairs from its views, the others from its prediction), then with parts
 * replaced by the truth: the one-way coefficients, the pair interaction coefficients
 * (measured / unmeasured pairs), everything (the max-entropy bias floor).
 *
 * Run (from packages/experiments):
 *   nice -n 19 npx tsx bench/calm-plus-decompose.ts --data adult --d 15 --k 3 --c 3 --n 65536 --eps 0.2,0.5 --reps 10 --seed 1
 */
import { estimateCalm, estimateCalmPlus, planCalm, simulateCalm } from "@calm-ldp/calm-core";
import { contingencyTable, createTable, type MarginalTable, sse } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { maxEntropy } from "@calm-ldp/reconstruction";
import { interactionTransform } from "../../calm-core/src/interaction-basis.js";
import { benchPopulation, calmPlusArguments, repetitionSample, reportsSeed } from "./support.js";

const { population, d, label } = await benchPopulation({ data: "adult", d: 15 });
const { k, n, epsList, reps, seed, queries } = calmPlusArguments("0.2,0.5");
const cards = population.store.schema.attributes.map((a) => a.labels.length);

/** A pair table's Helmert coefficients. */
const coeffs = (t: MarginalTable) => {
  const c = Float64Array.from(t.cells);
  interactionTransform(c, [cards[t.attributes[0]!]!, cards[t.attributes[1]!]!], false);
  return c;
};
const fromCoeffs = (a: number, b: number, c: Float64Array) => {
  const cells = Float64Array.from(c);
  interactionTransform(cells, [cards[a]!, cards[b]!], true);
  let total = 0;
  for (let i = 0; i < cells.length; i++) {
    cells[i] = Math.max(cells[i]!, 0);
    total += cells[i]!;
  }
  for (let i = 0; i < cells.length; i++) cells[i]! /= total;
  return createTable([a, b], [cards[a]!, cards[b]!], { cells, unit: "fraction" });
};
/** Mix: one-way coefficients from `one`, pair interaction from `two` (same shape). */
const mix = (one: Float64Array, two: Float64Array, cb: number) =>
  Float64Array.from(one, (x, u) => (u % cb !== 0 && u >= cb ? two[u]! : x));
const indep = (c: Float64Array, ca: number, cb: number) =>
  Float64Array.from(c, (x, u) => {
    const ja = Math.floor(u / cb);
    const jb = u % cb;
    if (ja === 0 || jb === 0) return x;
    // product distribution's coefficient: beta_a * beta_b with beta_a = sqrt(cb) c[ja*cb], beta_b = sqrt(ca) c[jb]
    return Math.sqrt(cb) * c[ja * cb]! * Math.sqrt(ca) * c[jb]!;
  });

console.log(`decomposition of calm-plus SSE: ${label} k=${k} n=${n}, ${reps} reps, seed ${seed}`);
const names = [
  "calm",
  "plus",
  "rebuilt",
  "true1way",
  "trueMeasPair",
  "trueUnmPair",
  "trueAllPair",
  "indepMeas",
  "indepUnm",
  "exactAll",
];
console.log(names.map((x) => x.padStart(13)).join(""));
for (const eps of epsList) {
  const sums = names.map(() => 0);
  for (let rep = 0; rep < reps; rep++) {
    const { store, qs, truths } = repetitionSample(population, { n, d, k, queries, seed, rep });
    const plan = planCalm({ schema: store.schema, n, eps, k });
    if (plan.l !== 2) throw new Error(`l = ${plan.l}`);
    const aggregator = simulateCalm(plan, store, seededRng(reportsSeed(seed, rep, eps)));
    const synopsis = estimateCalmPlus(plan, aggregator);
    const calm = estimateCalm(plan, aggregator);
    const measured = new Map<string, MarginalTable>();
    for (const v of synopsis.views) measured.set(`${v.attributes[0]},${v.attributes[1]}`, v);
    const truthPair = new Map<string, Float64Array>();
    const pairOf = (a: number, b: number) => {
      const key = `${a},${b}`;
      const m = measured.get(key);
      const est = m ? coeffs(m) : coeffs(synopsis.query([a, b]) as MarginalTable);
      let t = truthPair.get(key);
      if (!t) {
        t = coeffs(contingencyTable(store, [a, b]));
        truthPair.set(key, t);
      }
      return { est, truth: t, measured: m !== undefined };
    };
    qs.forEach((q, qi) => {
      const truth = truths[qi]!;
      sums[0]! += sse(calm.query(q).cells, truth);
      sums[1]! += sse(synopsis.query(q).cells, truth);
      const sorted = [...q].sort((x, y) => x - y);
      const pairs: { a: number; b: number; est: Float64Array; truth: Float64Array; measured: boolean }[] = [];
      for (let i = 0; i < sorted.length; i++)
        for (let j = i + 1; j < sorted.length; j++)
          pairs.push({ a: sorted[i]!, b: sorted[j]!, ...pairOf(sorted[i]!, sorted[j]!) });
      const answer = (pick: (p: (typeof pairs)[number]) => Float64Array) =>
        maxEntropy(
          pairs.map((p) => fromCoeffs(p.a, p.b, pick(p))),
          q,
        ).table.cells;
      const cb = (p: (typeof pairs)[number]) => cards[p.b]!;
      const variants: ((p: (typeof pairs)[number]) => Float64Array)[] = [
        (p) => p.est,
        (p) => mix(p.truth, p.est, cb(p)),
        (p) => (p.measured ? mix(p.est, p.truth, cb(p)) : p.est),
        (p) => (p.measured ? p.est : mix(p.est, p.truth, cb(p))),
        (p) => mix(p.est, p.truth, cb(p)),
        (p) => (p.measured ? indep(p.est, cards[p.a]!, cb(p)) : p.est),
        (p) => (p.measured ? p.est : indep(p.est, cards[p.a]!, cb(p))),
        (p) => p.truth,
      ];
      variants.forEach((f, i) => {
        sums[i + 2]! += sse(answer(f), truth);
      });
    });
  }
  console.log(`eps ${eps}\n${sums.map((s) => (s / reps / queries).toExponential(3).padStart(13)).join("")}`);
}
