import type { Column, RecordStore, RecordStoreInput, Schema } from "./api.js";
import { fail } from "./errors.js";
import { schemaCardinalities, validateSchema } from "./schema.js";

/** The narrowest column type that holds values in [0, c). */
function columnFor(c: number, length: number): Column {
  if (c <= 256) return new Uint8Array(length);
  if (c <= 65536) return new Uint16Array(length);
  return new Uint32Array(length);
}

function sameColumnType(a: unknown, c: number): boolean {
  if (c <= 256) return a instanceof Uint8Array;
  if (c <= 65536) return a instanceof Uint16Array;
  return a instanceof Uint32Array;
}

/**
 * A column-major record store over `schema`, from rows (`{ rows }`, record-major)
 * or columns (`{ columns }`, one per attribute). Every value is checked to be an
 * integer in [0, c_i). Each column is stored in the narrowest of Uint8Array /
 * Uint16Array / Uint32Array that holds its values; a column passed in already of
 * that type is used as is (not copied), any other input is copied. O(n d).
 */
export function createRecordStore(schema: Schema, input: RecordStoreInput): RecordStore {
  validateSchema(schema, "createRecordStore");
  const cards = schemaCardinalities(schema);
  const d = cards.length;
  const columns: Column[] = [];
  let size: number;
  if ("rows" in input) {
    const rows = input.rows;
    size = rows.length;
    for (let i = 0; i < d; i++) columns.push(columnFor(cards[i]!, size));
    for (let r = 0; r < size; r++) {
      const row = rows[r]!;
      if (row.length !== d) fail("createRecordStore", `row ${r} must have ${d} values`, row.length);
      for (let i = 0; i < d; i++) {
        const v = row[i]!;
        if (!(Number.isInteger(v) && v >= 0 && v < cards[i]!)) {
          fail("createRecordStore", `row ${r}, attribute ${i} must be an integer in [0, ${cards[i]})`, v);
        }
        columns[i]![r] = v;
      }
    }
  } else if ("columns" in input) {
    const given = input.columns;
    if (given.length !== d)
      fail("createRecordStore", `columns must have one column per attribute (${d})`, given.length);
    size = given[0]!.length;
    for (let i = 0; i < d; i++) {
      const source = given[i]!;
      const c = cards[i]!;
      if (source.length !== size)
        fail("createRecordStore", `column ${i} must have ${size} values like column 0`, source.length);
      const column = sameColumnType(source, c) ? (source as Column) : columnFor(c, size);
      for (let r = 0; r < size; r++) {
        const v = source[r]!;
        if (!(Number.isInteger(v) && v >= 0 && v < c)) {
          fail("createRecordStore", `column ${i}, record ${r} must be an integer in [0, ${c})`, v);
        }
        column[r] = v;
      }
      columns.push(column);
    }
  } else {
    return fail("createRecordStore", "input must be { rows } or { columns }", input);
  }
  return Object.freeze({ schema, size, columns: Object.freeze(columns) });
}

/** Record `r` of a store as one value per attribute (written into `out` when given). O(d). */
export function recordAt(store: RecordStore, r: number, out?: number[]): number[] {
  if (!Number.isInteger(r) || r < 0 || r >= store.size)
    fail("recordAt", `record index must be in [0, ${store.size})`, r);
  const d = store.columns.length;
  const record = out ?? new Array<number>(d);
  for (let i = 0; i < d; i++) record[i] = store.columns[i]![r]!;
  return record;
}

/**
 * A new store holding the records at `rows` (in that order; repeats allowed), e.g.
 * a sample with replacement when an experiment needs more users than the data
 * has. O(|rows| d).
 */
export function selectRecords(store: RecordStore, rows: ArrayLike<number>): RecordStore {
  const m = rows.length;
  for (let j = 0; j < m; j++) {
    const r = rows[j]!;
    if (!(Number.isInteger(r) && r >= 0 && r < store.size))
      fail("selectRecords", `row indices must be in [0, ${store.size})`, r);
  }
  const columns = store.columns.map((source) => {
    const column = new (source.constructor as { new (length: number): Column })(m);
    for (let j = 0; j < m; j++) column[j] = source[rows[j]!]!;
    return column;
  });
  return Object.freeze({ schema: store.schema, size: m, columns: Object.freeze(columns) });
}
