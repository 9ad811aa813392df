import type { MarginalSynopsis, MarginalTable } from "@calm-ldp/marginal-algebra";
import type { ModelStep, SamplingModel, SynopsisModelOptions } from "./api.js";
import { fail } from "./errors.js";
import { runningIntersection } from "./running-intersection.js";
import { checkTable } from "./sample-model.js";

/**
 * Mutual information (nats) between the attribute at position `position` of a
 * table and the joint of its other attributes, from the cells clipped at 0 and
 * normalised. O(|V|).
 */
function informationWithRest(table: MarginalTable, position: number): number {
  const cards = table.cardinalities;
  const c = cards[position]!;
  let after = 1;
  for (let j = position + 1; j < cards.length; j++) after *= cards[j]!;
  const restCells = table.cells.length / c;
  const own = new Float64Array(c);
  const rest = new Float64Array(restCells);
  let total = 0;
  for (let u = 0; u < table.cells.length; u++) {
    const x = Math.max(0, table.cells[u]!);
    const value = Math.floor(u / after) % c;
    const other = Math.floor(u / (after * c)) * after + (u % after);
    own[value] += x;
    rest[other] += x;
    total += x;
  }
  if (!(total > 0)) return 0;
  let mi = 0;
  for (let u = 0; u < table.cells.length; u++) {
    const x = Math.max(0, table.cells[u]!) / total;
    if (x <= 0) continue;
    const value = Math.floor(u / after) % c;
    const other = Math.floor(u / (after * c)) * after + (u % after);
    mi += x * Math.log(x / ((own[value]! / total) * (rest[other]! / total)));
  }
  return Math.max(0, mi);
}

/**
 * A sampling model built from any release that answers marginal queries (a
 * `MarginalSynopsis`: CALM's maximum-entropy answers over its views, or a
 * baseline's), as a Bayesian network chosen greedily in the manner of PrivBayes
 * (Zhang et al., SIGMOD 2014), without further noise: the first step draws the
 * pair with the largest mutual information; then, repeatedly, every attribute
 * not yet drawn gets up to `maxParents` (default 2) parents among the drawn ones,
 * added one at a time, each time the one that most increases the mutual
 * information `I(x; parents)` measured on the synopsis's answer over
 * `parents + {x}` (a parent set is only considered while that table has at most
 * `maxCells` cells, default 4096); the attribute with the most information is
 * drawn next, from that answer's conditional. With `maxParents: 1` this is a
 * Chow-Liu-like tree grown by Prim's rule. The answers are used as released
 * (negative cells count as 0 when sampling).
 *
 * Cost: O(d^3 maxParents) synopsis queries of at most maxParents + 1 attributes
 * (memoised), each plus O(|V|) for the information; e.g. about 700 small queries
 * for d = 16. Sampling is `sampleModel`'s.
 */
export function synopsisModel(
  synopsis: MarginalSynopsis,
  cardinalities: readonly number[],
  options: SynopsisModelOptions = {},
): SamplingModel {
  const where = "synopsisModel";
  if (typeof synopsis?.query !== "function") fail(where, "synopsis must answer query(attributes)", synopsis);
  const d = cardinalities.length;
  cardinalities.forEach((c, a) => {
    if (!(Number.isInteger(c) && c >= 1)) fail(where, `cardinalities[${a}] must be an integer >= 1`, c);
  });
  const maxParents = options.maxParents ?? 2;
  if (!(Number.isInteger(maxParents) && maxParents >= 0))
    fail(where, "maxParents must be an integer >= 0", maxParents);
  const maxCells = options.maxCells ?? 4096;
  if (!(Number.isFinite(maxCells) && maxCells >= 1)) fail(where, "maxCells must be a number >= 1", maxCells);
  const wanted = options.attributes
    ? [...options.attributes].sort((x, y) => x - y)
    : [...cardinalities.keys()];
  wanted.forEach((a, i) => {
    if (!(Number.isInteger(a) && a >= 0 && a < d)) fail(where, `attributes must be indices in [0, ${d})`, a);
    if (i > 0 && wanted[i - 1] === a) fail(where, "attributes must be distinct", options.attributes);
  });
  if (wanted.length === 0) fail(where, "the model must draw at least one attribute", wanted.length);

  const cache = new Map<string, MarginalTable>();
  const answer = (set: readonly number[]): MarginalTable => {
    const sorted = [...set].sort((x, y) => x - y);
    const key = sorted.join(",");
    let table = cache.get(key);
    if (!table) {
      table = synopsis.query(sorted);
      checkTable(where, table, cache.size);
      if (table.attributes.join(",") !== key)
        fail(where, `the synopsis answered [${key}] over other attributes`, table.attributes);
      cache.set(key, table);
    }
    return table;
  };
  const cells = (set: readonly number[]) => set.reduce((m, a) => m * cardinalities[a]!, 1);
  const information = (x: number, parents: readonly number[]) => {
    const table = answer([...parents, x]);
    return informationWithRest(table, table.attributes.indexOf(x));
  };

  const steps: ModelStep[] = [];
  const drawn: number[] = [];
  const left = new Set(wanted);
  const take = (table: MarginalTable, given: number[], fresh: number[]) => {
    steps.push({ table, given: [...given].sort((x, y) => x - y), fresh: [...fresh].sort((x, y) => x - y) });
    for (const a of fresh) {
      drawn.push(a);
      left.delete(a);
    }
  };

  if (maxParents === 0 || wanted.length === 1) {
    for (const a of wanted) take(answer([a]), [], [a]);
  } else {
    let best: [number, number] | undefined;
    let bestMi = -1;
    for (let i = 0; i < wanted.length; i++)
      for (let j = i + 1; j < wanted.length; j++) {
        const pair = [wanted[i]!, wanted[j]!];
        if (cells(pair) > maxCells) continue;
        const mi = information(pair[0]!, [pair[1]!]);
        if (mi > bestMi) {
          bestMi = mi;
          best = pair as [number, number];
        }
      }
    if (best) take(answer(best), [], best);
    else take(answer([wanted[0]!]), [], [wanted[0]!]);
    while (left.size > 0) {
      let chosen = -1;
      let chosenParents: number[] = [];
      let chosenMi = -1;
      for (const x of left) {
        const parents: number[] = [];
        let mi = 0;
        for (let t = 0; t < maxParents; t++) {
          let bestY = -1;
          let bestYMi = -1;
          for (const y of drawn) {
            if (parents.includes(y) || cells([...parents, y, x]) > maxCells) continue;
            const value = information(x, [...parents, y]);
            if (value > bestYMi) {
              bestYMi = value;
              bestY = y;
            }
          }
          if (bestY < 0) break;
          parents.push(bestY);
          mi = bestYMi;
        }
        if (mi > chosenMi) {
          chosenMi = mi;
          chosen = x;
          chosenParents = parents;
        }
      }
      take(answer([...chosenParents, chosen]), chosenParents, [chosen]);
    }
  }
  const { decomposable } = runningIntersection(steps, []);
  return {
    attributes: wanted,
    cardinalities: wanted.map((a) => cardinalities[a]!),
    steps,
    decomposable,
    unusedTables: 0,
  };
}
