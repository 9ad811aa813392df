/** calm-plus's "maxent" interaction targets (see `maxentTargets`). */
import { cellValues, createTable, type MarginalTable } from "@calm-ldp/marginal-algebra";
import { fitIpf } from "@calm-ldp/reconstruction";
import { interactionTransform } from "../interaction-basis.js";
import type { Pooled } from "./pooled.js";

/** IPF sweeps and tolerance (largest margin difference) of {@link maxentTargets}. */
const MAXENT_TARGET_SWEEPS = 200;
const MAXENT_TARGET_TOLERANCE = 1e-10;

/**
 * The "maxent" targets of the attribute set T (`block`, r >= 3 attributes): its
 * (r-1)-way marginals are rebuilt from the pooled values of every coefficient
 * supported in them (negative cells clipped to 1e-12, renormalised); the
 * maximum-entropy table over T with these marginals is found by reconstruction's
 * `fitIpf` from the uniform table (at most 200 sweeps); its coefficients
 * supported on all of T, keyed as the pooled map keys them, are returned (undefined if some lower-order
 * coefficient was never measured, or the IPF did not converge: the caller keeps
 * the independence target). Cost: O(D_T r (sum c + sweeps)) for D_T = prod c_a.
 */
export function maxentTargets(
  block: string,
  pooled: Map<string, Pooled>,
  cardinalities: readonly number[],
): Map<string, number> | undefined {
  const attributes = block
    .split(",")
    .filter((x) => x !== "")
    .map(Number);
  const cards = attributes.map((a) => cardinalities[a]!);
  const r = attributes.length;
  const size = cards.reduce((x, y) => x * y, 1);

  // Margins over T minus attribute i, as cells.
  const margins: MarginalTable[] = [];
  for (let drop = 0; drop < r; drop++) {
    const sub = attributes.filter((_, i) => i !== drop);
    const subCards = cards.filter((_, i) => i !== drop);
    const subSize = size / cards[drop]!;
    const coefficients = new Float64Array(subSize);
    for (let u = 0; u < subSize; u++) {
      const digits = cellValues(u, subCards);
      let key = "";
      let supportCells = 1;
      digits.forEach((j, i) => {
        if (j === 0) return;
        key += `${sub[i]}:${j},`;
        supportCells *= subCards[i]!;
      });
      if (key === "") {
        coefficients[u] = 1 / Math.sqrt(subSize);
        continue;
      }
      const entry = pooled.get(key);
      if (!entry) return undefined;
      coefficients[u] = entry.value / Math.sqrt(subSize / supportCells);
    }
    interactionTransform(coefficients, subCards, true);
    let total = 0;
    for (let u = 0; u < subSize; u++) {
      coefficients[u] = Math.max(coefficients[u]!, 1e-12);
      total += coefficients[u]!;
    }
    for (let u = 0; u < subSize; u++) coefficients[u]! /= total;
    const margin = createTable(sub, subCards);
    margin.cells.set(coefficients);
    margins.push(margin);
  }
  const fit = fitIpf(attributes, cards, margins, {
    tolerance: MAXENT_TARGET_TOLERANCE,
    maxIterations: MAXENT_TARGET_SWEEPS,
  });
  if (!fit.converged) return undefined;
  const cells = fit.table.cells; // a fresh table: transformed in place
  interactionTransform(cells, cards, false);
  const targets = new Map<string, number>();
  for (let u = 0; u < size; u++) {
    const digits = cellValues(u, cards);
    if (digits.some((j) => j === 0)) continue;
    targets.set(digits.map((j, i) => `${attributes[i]}:${j},`).join(""), cells[u]!);
  }
  return targets;
}
