import type { CellUnit, MarginalTable } from "./api.js";
import { isSubset, positionsIn, sortedAttributes } from "./attribute-set.js";
import { cellCount } from "./cell-index.js";
import { fail } from "./errors.js";
import { cachedProjectionMap, projectCells } from "./projection-map.js";

/** Options of {@link createTable}. */
export interface TableOptions {
  /** Initial cells (copied); default all zero. */
  readonly cells?: ArrayLike<number>;
  /** Default "fraction". */
  readonly unit?: CellUnit;
}

/**
 * A marginal table over `attributes` (strictly ascending indices) with their
 * `cardinalities`, cells in mixed-radix order (first attribute most significant),
 * holding fractions (default) or counts. O(|V_A|).
 */
export function createTable(
  attributes: readonly number[],
  cardinalities: readonly number[],
  options: TableOptions = {},
): MarginalTable {
  const size = checkShape("createTable", attributes, cardinalities);
  const unit = options.unit ?? "fraction";
  if (unit !== "fraction" && unit !== "count")
    fail("createTable", 'unit must be "fraction" or "count"', unit);
  const cells = new Float64Array(size);
  if (options.cells !== undefined) {
    if (options.cells.length !== size)
      fail("createTable", `cells must have prod c_i = ${size} entries`, options.cells.length);
    cells.set(options.cells);
  }
  return { attributes: [...attributes], cardinalities: [...cardinalities], cells, unit };
}

/**
 * The uniform table over `attributes`: every cell `total / |V_A|` (the maximum-
 * entropy table with that total). O(|V_A|).
 */
export function uniformTable(
  attributes: readonly number[],
  cardinalities: readonly number[],
  total = 1,
  unit: CellUnit = "fraction",
): MarginalTable {
  const table = createTable(attributes, cardinalities, { unit });
  table.cells.fill(total / table.cells.length);
  return table;
}

function checkShape(where: string, attributes: readonly number[], cardinalities: readonly number[]): number {
  if (!Array.isArray(attributes) || !Array.isArray(cardinalities)) {
    fail(where, "attributes and cardinalities must be arrays", attributes);
  }
  if (attributes.length !== cardinalities.length) {
    fail(
      where,
      `cardinalities must have one entry per attribute (${attributes.length})`,
      cardinalities.length,
    );
  }
  for (let i = 0; i < attributes.length; i++) {
    const a = attributes[i];
    if (!Number.isInteger(a) || a < 0 || (i > 0 && a <= attributes[i - 1])) {
      fail(where, "attributes must be strictly ascending integers >= 0", attributes);
    }
  }
  return cellCount(cardinalities);
}

/**
 * Check that a value is a well-formed {@link MarginalTable} (ascending attributes,
 * one cardinality each, `prod c_i` finite cells, a known unit) and return it.
 * O(|V_A|).
 */
export function validateTable(table: MarginalTable, where = "validateTable"): MarginalTable {
  if (table === null || typeof table !== "object") fail(where, "table must be an object", table);
  const size = checkShape(where, table.attributes, table.cardinalities);
  if (!(table.cells instanceof Float64Array) || table.cells.length !== size) {
    fail(where, `cells must be a Float64Array of prod c_i = ${size} entries`, table.cells);
  }
  if (table.unit !== "fraction" && table.unit !== "count")
    fail(where, 'unit must be "fraction" or "count"', table.unit);
  for (let u = 0; u < size; u++) {
    if (!Number.isFinite(table.cells[u]))
      fail(where, `cells must be finite; cell ${u} is not`, table.cells[u]);
  }
  return table;
}

/** Sum of the cells (1 for an exact fraction table, n for counts). O(|V_A|). */
export function tableTotal(table: MarginalTable): number {
  let total = 0;
  const cells = table.cells;
  for (let u = 0; u < cells.length; u++) total += cells[u];
  return total;
}

/** An independent copy (new cells array). O(|V_A|). */
export function copyTable(table: MarginalTable): MarginalTable {
  return {
    attributes: [...table.attributes],
    cardinalities: [...table.cardinalities],
    cells: Float64Array.from(table.cells),
    unit: table.unit,
  };
}

/**
 * The table rescaled to fractions: cells divided by their total (which must be
 * > 0). Negative cells stay negative; the result sums to 1. O(|V_A|).
 */
export function normalizeTable(table: MarginalTable): MarginalTable {
  const total = tableTotal(table);
  if (!(total > 0)) fail("normalizeTable", "the table total must be > 0", total);
  const out = copyTable(table);
  for (let u = 0; u < out.cells.length; u++) out.cells[u] /= total;
  return { ...out, unit: "fraction" };
}

/**
 * Fractions from counts: cells divided by `n` (default: the table total). A
 * fraction table is returned as a copy. O(|V_A|).
 */
export function toFractions(table: MarginalTable, n?: number): MarginalTable {
  if (table.unit === "fraction") return copyTable(table);
  const divisor = n ?? tableTotal(table);
  if (!(divisor > 0)) fail("toFractions", "n must be > 0", divisor);
  const out = copyTable(table);
  for (let u = 0; u < out.cells.length; u++) out.cells[u] /= divisor;
  return { ...out, unit: "fraction" };
}

/** Counts from fractions: cells times `n` users. A count table is returned as a copy. O(|V_A|). */
export function toCounts(table: MarginalTable, n: number): MarginalTable {
  if (table.unit === "count") return copyTable(table);
  if (!(n >= 0) || !Number.isFinite(n)) fail("toCounts", "n must be a finite number >= 0", n);
  const out = copyTable(table);
  for (let u = 0; u < out.cells.length; u++) out.cells[u] *= n;
  return { ...out, unit: "count" };
}

/**
 * Marginalise onto `attributes` (a subset of the table's, any order; the result
 * is over them ascending): `T_S[c] = sum of the cells u with u_S = c`. Same unit
 * and total. O(|V_A|) (the index map is memoised per shape).
 */
export function projectTable(table: MarginalTable, attributes: readonly number[]): MarginalTable {
  const subset = sortedAttributes("projectTable", attributes);
  if (!isSubset(subset, table.attributes)) {
    fail(
      "projectTable",
      `attributes must be a subset of the table's [${table.attributes.join(", ")}]`,
      attributes,
    );
  }
  const positions = positionsIn(subset, table.attributes);
  const cardinalities = positions.map((p) => table.cardinalities[p]);
  const out = createTable(subset, cardinalities, { unit: table.unit });
  if (subset.length === table.attributes.length) {
    out.cells.set(table.cells);
    return out;
  }
  projectCells(table.cells, cachedProjectionMap(table.cardinalities, positions), out.cells);
  return out;
}

/**
 * Embed a table into a superset of its attributes (`attributes`, ascending, with
 * `cardinalities`; it must include the table's own attributes with the same
 * cardinalities), spreading each cell evenly over the cells that project onto it:
 * `E[u] = T[u_A] / (|V_B| / |V_A|)`. The result projects back to the table, has the
 * same total, and is the maximum-entropy table over B with that marginal. O(|V_B|).
 */
export function expandTable(
  table: MarginalTable,
  attributes: readonly number[],
  cardinalities: readonly number[],
): MarginalTable {
  const out = createTable(attributes, cardinalities, { unit: table.unit });
  if (!isSubset(table.attributes, out.attributes)) {
    fail("expandTable", `attributes must include the table's [${table.attributes.join(", ")}]`, attributes);
  }
  const positions = positionsIn(table.attributes, out.attributes);
  positions.forEach((p, i) => {
    if (out.cardinalities[p] !== table.cardinalities[i]) {
      fail(
        "expandTable",
        `cardinality of attribute ${table.attributes[i]} must be ${table.cardinalities[i]}`,
        out.cardinalities[p],
      );
    }
  });
  const map = cachedProjectionMap(out.cardinalities, positions);
  const spread = out.cells.length / table.cells.length;
  for (let u = 0; u < out.cells.length; u++) out.cells[u] = table.cells[map[u]] / spread;
  return out;
}
