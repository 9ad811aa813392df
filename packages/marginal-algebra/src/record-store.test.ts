import { describe, expect, it } from "vitest";
import { createRecordStore, recordAt, selectRecords } from "./record-store.js";
import { createSchema } from "./schema.js";

const schema = createSchema([
  { name: "a", cardinality: 2 },
  { name: "b", cardinality: 300 },
  { name: "c", cardinality: 70000 },
]);

describe("createRecordStore", () => {
  it("stores rows and columns identically, in the narrowest column type", () => {
    const rows = [
      [0, 299, 69999],
      [1, 5, 0],
    ];
    const fromRows = createRecordStore(schema, { rows });
    const fromColumns = createRecordStore(schema, {
      columns: [
        [0, 1],
        [299, 5],
        [69999, 0],
      ],
    });
    expect(fromRows.size).toBe(2);
    expect(fromRows.columns[0]).toBeInstanceOf(Uint8Array);
    expect(fromRows.columns[1]).toBeInstanceOf(Uint16Array);
    expect(fromRows.columns[2]).toBeInstanceOf(Uint32Array);
    for (let i = 0; i < 3; i++)
      expect(Array.from(fromColumns.columns[i]!)).toEqual(Array.from(fromRows.columns[i]!));
    expect(recordAt(fromRows, 1)).toEqual([1, 5, 0]);
  });

  it("uses a typed column of the right type without copying", () => {
    const column = Uint8Array.from([0, 1, 1]);
    const store = createRecordStore(createSchema([{ name: "x", cardinality: 2 }]), { columns: [column] });
    expect(store.columns[0]).toBe(column);
  });

  it("rejects values outside [0, c) and ragged input, naming where", () => {
    expect(() => createRecordStore(schema, { rows: [[0, 300, 0]] })).toThrow(
      /createRecordStore: row 0, attribute 1 must be an integer in \[0, 300\) \(got 300\)/,
    );
    expect(() => createRecordStore(schema, { rows: [[0, 1]] })).toThrow(/row 0 must have 3 values \(got 2\)/);
    expect(() => createRecordStore(schema, { columns: [[0], [1, 2], [0]] })).toThrow(
      /column 1 must have 1 values/,
    );
    expect(() => createRecordStore(schema, { columns: [[0], [-1], [0]] })).toThrow(/column 1, record 0/);
    expect(() => createRecordStore(schema, { columns: [[0], [0.5], [0]] })).toThrow(/got 0.5/);
  });

  it("selectRecords samples rows with repeats", () => {
    const store = createRecordStore(schema, {
      rows: [
        [0, 1, 2],
        [1, 3, 4],
      ],
    });
    const sample = selectRecords(store, [1, 1, 0]);
    expect(sample.size).toBe(3);
    expect(recordAt(sample, 0)).toEqual([1, 3, 4]);
    expect(recordAt(sample, 2)).toEqual([0, 1, 2]);
    expect(sample.columns[1]).toBeInstanceOf(Uint16Array);
    expect(() => selectRecords(store, [2])).toThrow(/row indices must be in \[0, 2\)/);
  });
});
