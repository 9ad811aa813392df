import type { Column, MarginalTable, Schema } from "@calm-ldp/marginal-algebra";
import type { Rng } from "@calm-ldp/random";
import type { ModelStep, SampleOptions, SamplingModel, SyntheticRecords } from "./api.js";
import { fail } from "./errors.js";

const TWO_POW_32 = 2 ** 32;
const CHUNK = 8192;

/** Cumulative thresholds (scale 2^32) of P(fresh | given) for one step, row-major [given][fresh]. */
interface Conditional {
  readonly rows: number;
  readonly cols: number;
  readonly thresholds: Float64Array;
  /** Rows whose mass was 0 (they fall back to the fresh marginal). */
  readonly empty: Uint8Array;
  readonly clipped: number;
}

function conditional(step: ModelStep): Conditional {
  const { table, given, fresh } = step;
  const positions = new Map(table.attributes.map((a, i) => [a, i]));
  const cards = table.cardinalities;
  const givenPos = given.map((a) => positions.get(a)!);
  const freshPos = fresh.map((a) => positions.get(a)!);
  const rows = givenPos.reduce((m, p) => m * cards[p]!, 1);
  const cols = freshPos.reduce((m, p) => m * cards[p]!, 1);
  const mass = new Float64Array(rows * cols);
  const k = cards.length;
  const values = new Array<number>(k).fill(0);
  let total = 0;
  let negative = 0;
  for (let u = 0; u < table.cells.length; u++) {
    let row = 0;
    for (const p of givenPos) row = row * cards[p]! + values[p]!;
    let col = 0;
    for (const p of freshPos) col = col * cards[p]! + values[p]!;
    const x = table.cells[u]!;
    if (x > 0) {
      mass[row * cols + col] += x;
      total += x;
    } else if (x < 0) negative -= x;
    // advance the mixed-radix counter (last attribute fastest)
    for (let j = k - 1; j >= 0; j--) {
      if (++values[j]! < cards[j]!) break;
      values[j] = 0;
    }
  }
  if (!(total > 0)) fail("sampleModel", "every table must have positive mass after clipping", total);
  const marginal = new Float64Array(cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) marginal[c] += mass[r * cols + c]!;
  const thresholds = new Float64Array(rows * cols);
  const empty = new Uint8Array(rows);
  for (let r = 0; r < rows; r++) {
    let rowMass = 0;
    for (let c = 0; c < cols; c++) rowMass += mass[r * cols + c]!;
    const source = rowMass > 0 ? mass.subarray(r * cols, (r + 1) * cols) : marginal;
    const sum = rowMass > 0 ? rowMass : total;
    if (!(rowMass > 0)) empty[r] = 1;
    let acc = 0;
    for (let c = 0; c < cols; c++) {
      acc += source[c]!;
      thresholds[r * cols + c] = Math.floor((acc / sum) * TWO_POW_32);
    }
    thresholds[r * cols + cols - 1] = TWO_POW_32;
  }
  return { rows, cols, thresholds, empty, clipped: negative / (total + negative) };
}

function columnFor(cardinality: number, n: number): Column {
  return cardinality <= 256
    ? new Uint8Array(n)
    : cardinality <= 65536
      ? new Uint16Array(n)
      : new Uint32Array(n);
}

function outputSchema(model: SamplingModel, schema: Schema | undefined): Schema {
  return {
    attributes: model.attributes.map((a, j) => {
      const c = model.cardinalities[j]!;
      const source = schema?.attributes[a];
      if (schema && !source) fail("sampleModel", `options.schema has no attribute ${a}`, a);
      if (source && source.labels.length !== c)
        fail("sampleModel", `options.schema attribute ${a} must have ${c} labels`, source.labels.length);
      return source ?? { name: `a${a}`, labels: Array.from({ length: c }, (_, v) => String(v)) };
    }),
  };
}

/**
 * Draw `n` independent records from a sampling model (`marginalModel`,
 * `viewsModel`): for each step in order, every record's fresh attributes are drawn
 * from the step table's conditional distribution given the record's already-drawn
 * `given` attributes (negative cells count as 0; a conditioning configuration with
 * no mass falls back to the fresh attributes' marginal in that table, counted in
 * `emptyConditionals`). Each draw is one uniform 32-bit word compared against
 * cumulative integer thresholds (bulk `rng.fill`), so every conditional
 * probability is realised to within 2^-32.
 *
 * Cost: O(sum over steps of |table|) to build the conditionals, then
 * O(n * sum over steps (|given| + |fresh| + log |V_fresh|)) to draw; memory O(n d)
 * bytes for the columns (Uint8Array when a cardinality fits). Millions of records
 * take well under a second per few attributes (see the package README).
 */
export function sampleModel(
  model: SamplingModel,
  n: number,
  rng: Rng,
  options: SampleOptions = {},
): SyntheticRecords {
  if (!(Number.isSafeInteger(n) && n >= 0 && n <= 2 ** 32))
    fail("sampleModel", "n must be an integer in [0, 2^32]", n);
  const schema = outputSchema(model, options.schema);
  const columnOf = new Map(model.attributes.map((a, j) => [a, j]));
  const columns = model.cardinalities.map((c) => columnFor(c, n));
  const words = new Uint32Array(Math.min(Math.max(n, 1), CHUNK));
  const rowIndex = new Uint32Array(Math.min(Math.max(n, 1), CHUNK));
  let clippedMass = 0;
  let emptyConditionals = 0;
  for (const step of model.steps) {
    const cond = conditional(step);
    clippedMass += cond.clipped;
    const positions = new Map(step.table.attributes.map((a, i) => [a, i]));
    const givenCols = step.given.map((a) => columns[columnOf.get(a)!]!);
    const givenCards = step.given.map((a) => step.table.cardinalities[positions.get(a)!]!);
    const freshCols = step.fresh.map((a) => columns[columnOf.get(a)!]!);
    const freshCards = step.fresh.map((a) => step.table.cardinalities[positions.get(a)!]!);
    const { cols, thresholds, empty } = cond;
    const reached = new Uint8Array(cond.rows);
    const binary = cols > 16;
    const single = freshCols.length === 1 ? freshCols[0]! : undefined;
    for (let start = 0; start < n; start += CHUNK) {
      const length = Math.min(CHUNK, n - start);
      rowIndex.fill(0, 0, length);
      for (let g = 0; g < givenCols.length; g++) {
        const column = givenCols[g]!;
        const c = givenCards[g]!;
        for (let r = 0; r < length; r++) rowIndex[r] = rowIndex[r]! * c + column[start + r]!;
      }
      rng.fill(words);
      for (let r = 0; r < length; r++) {
        const row = rowIndex[r]!;
        reached[row] = 1;
        const base = row * cols;
        const u = words[r]!;
        let cell: number;
        if (binary) {
          let lo = 0;
          let hi = cols - 1;
          while (lo < hi) {
            const mid = (lo + hi) >>> 1;
            if (u < thresholds[base + mid]!) hi = mid;
            else lo = mid + 1;
          }
          cell = lo;
        } else {
          cell = 0;
          while (u >= thresholds[base + cell]!) cell++;
        }
        if (single) single[start + r] = cell;
        else
          for (let f = freshCols.length - 1; f >= 0; f--) {
            const c = freshCards[f]!;
            const value = cell % c;
            freshCols[f]![start + r] = value;
            cell = (cell - value) / c;
          }
      }
    }
    for (let row = 0; row < cond.rows; row++) if (empty[row] && reached[row]) emptyConditionals++;
  }
  return {
    store: { schema, size: n, columns },
    attributes: model.attributes,
    clippedMass,
    emptyConditionals,
  };
}

/** @internal Validate a table used by a model builder. */
export function checkTable(where: string, table: MarginalTable, index: number): void {
  if (!table || !(table.cells instanceof Float64Array))
    fail(where, `table ${index} must be a MarginalTable`, table);
  const k = table.attributes.length;
  if (table.cardinalities.length !== k)
    fail(where, `table ${index} must have one cardinality per attribute`, table.cardinalities.length);
  let cells = 1;
  for (let i = 0; i < k; i++) {
    const a = table.attributes[i]!;
    const c = table.cardinalities[i]!;
    if (!Number.isInteger(a) || a < 0 || (i > 0 && a <= table.attributes[i - 1]!))
      fail(where, `table ${index} attributes must be ascending integers >= 0`, table.attributes);
    if (!Number.isInteger(c) || c < 1) fail(where, `table ${index} cardinalities must be integers >= 1`, c);
    cells *= c;
  }
  if (cells !== table.cells.length)
    fail(where, `table ${index} must have ${cells} cells`, table.cells.length);
  for (let u = 0; u < table.cells.length; u++)
    if (!Number.isFinite(table.cells[u]!)) fail(where, `table ${index} cells must be finite`, table.cells[u]);
}
