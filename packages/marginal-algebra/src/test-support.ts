import type { Rng } from "@calm-ldp/random";
import type { MarginalTable, RecordStore } from "./api.js";
import { cellCount } from "./cell-index.js";
import { createTable } from "./table.js";

/**
 * Standard normal variate by Box-Muller from two uniform doubles.
 * @internal test support, not exported from the package
 */
export function gaussian(rng: Rng): number {
  const u = 1 - rng.nextFloat();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.nextFloat());
}

/** A random distribution (Dirichlet(1): normalised exponentials) over a table shape. @internal */
export function randomDistribution(
  rng: Rng,
  attributes: readonly number[],
  cardinalities: readonly number[],
): MarginalTable {
  const table = createTable(attributes, cardinalities);
  let total = 0;
  for (let u = 0; u < table.cells.length; u++) {
    table.cells[u] = -Math.log(1 - rng.nextFloat());
    total += table.cells[u];
  }
  for (let u = 0; u < table.cells.length; u++) table.cells[u] /= total;
  return table;
}

/** Brute-force marginal of a store: one record at a time through explicit value arithmetic. @internal */
export function bruteForceTable(store: RecordStore, attributes: readonly number[]): Float64Array {
  const cards = attributes.map((a) => store.schema.attributes[a]!.labels.length);
  const out = new Float64Array(cellCount(cards));
  for (let r = 0; r < store.size; r++) {
    let index = 0;
    attributes.forEach((a, i) => {
      index = index * cards[i]! + store.columns[a]![r]!;
    });
    out[index]++;
  }
  return out;
}

/** Brute-force projection: sum cells by decoding every cell's values. @internal */
export function bruteForceProject(table: MarginalTable, subset: readonly number[]): Float64Array {
  const positions = subset.map((a) => table.attributes.indexOf(a));
  const cards = positions.map((p) => table.cardinalities[p]!);
  const out = new Float64Array(cellCount(cards));
  const values = new Array<number>(table.attributes.length).fill(0);
  for (let u = 0; u < table.cells.length; u++) {
    let rest = u;
    for (let i = table.attributes.length - 1; i >= 0; i--) {
      values[i] = rest % table.cardinalities[i]!;
      rest = Math.floor(rest / table.cardinalities[i]!);
    }
    let index = 0;
    positions.forEach((p, i) => {
      index = index * cards[i]! + values[p]!;
    });
    out[index] += table.cells[u];
  }
  return out;
}
