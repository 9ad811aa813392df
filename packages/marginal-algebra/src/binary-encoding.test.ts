import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import {
  binaryEncoding,
  decodeRecord,
  decodeTable,
  encodedAttributes,
  encodeRecord,
  encodeStore,
} from "./binary-encoding.js";
import { contingencyTable } from "./contingency.js";
import { createRecordStore } from "./record-store.js";
import { createSchema, schemaCardinalities } from "./schema.js";
import { createTable } from "./table.js";

const schema = createSchema([
  { name: "edu", cardinality: 3 },
  { name: "sex", labels: ["f", "m"] },
  { name: "age", cardinality: 5 },
]);

describe("binaryEncoding", () => {
  it("uses ceil(log2 c) bits per attribute, most significant first", () => {
    const encoding = binaryEncoding(schema);
    expect(encoding.bits).toEqual([2, 1, 3]);
    expect(encoding.offsets).toEqual([0, 2, 3]);
    expect(encoding.schema.attributes.map((a) => a.name)).toEqual([
      "edu.bit1",
      "edu.bit0",
      "sex",
      "age.bit2",
      "age.bit1",
      "age.bit0",
    ]);
    expect(schemaCardinalities(encoding.schema)).toEqual([2, 2, 2, 2, 2, 2]);
    expect(encodeRecord(encoding, [2, 1, 4])).toEqual([1, 0, 1, 1, 0, 0]);
    expect(encodedAttributes(encoding, [2, 0])).toEqual([0, 1, 3, 4, 5]);
  });

  it("round-trips every record and rejects codes that encode no value", () => {
    const encoding = binaryEncoding(schema);
    for (let a = 0; a < 3; a++) {
      for (let b = 0; b < 2; b++) {
        for (let c = 0; c < 5; c++)
          expect(decodeRecord(encoding, encodeRecord(encoding, [a, b, c]))).toEqual([a, b, c]);
      }
    }
    expect(() => decodeRecord(encoding, [1, 1, 0, 0, 0, 0])).toThrow(
      /decodeRecord: code of attribute 0 must be < 3 \(got 3\)/,
    );
    expect(() => encodeRecord(encoding, [3, 0, 0])).toThrow(
      /encodeRecord: value 0 must be an integer in \[0, 3\)/,
    );
  });

  it("a contingency table of the encoded store decodes to the source table", () => {
    const rng = seededRng(3);
    const rows = Array.from({ length: 500 }, () => [
      rng.nextUint32() % 3,
      rng.nextUint32() % 2,
      rng.nextUint32() % 5,
    ]);
    const store = createRecordStore(schema, { rows });
    const encoding = binaryEncoding(schema);
    const bits = encodeStore(encoding, store);
    expect(bits.columns.length).toBe(6);
    for (const query of [[0], [2], [0, 2], [0, 1, 2]]) {
      const decoded = decodeTable(
        encoding,
        contingencyTable(bits, encodedAttributes(encoding, query), "count"),
      );
      expect(decoded.invalidMass).toBe(0);
      expect(decoded.table.attributes).toEqual(query);
      expect(Array.from(decoded.table.cells)).toEqual(
        Array.from(contingencyTable(store, query, "count").cells),
      );
    }
  });

  it("decodeTable reports the mass on invalid codes and rejects partial bit groups", () => {
    const encoding = binaryEncoding(schema);
    const bitsTable = createTable([0, 1], [2, 2], { cells: [0.1, 0.2, 0.3, 0.4] });
    const decoded = decodeTable(encoding, bitsTable);
    expect(Array.from(decoded.table.cells)).toEqual([0.1, 0.2, 0.3]);
    expect(decoded.invalidMass).toBeCloseTo(0.4, 15);
    expect(() => decodeTable(encoding, createTable([1], [2]))).toThrow(/whole bit groups/);
  });
});
