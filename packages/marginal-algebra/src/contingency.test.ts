import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { contingencyTable } from "./contingency.js";
import { createRecordStore } from "./record-store.js";
import { createSchema } from "./schema.js";
import { bruteForceTable } from "./test-support.js";

describe("contingencyTable", () => {
  const cards = [2, 3, 5, 2, 300, 4];
  const schema = createSchema(cards.map((c, i) => ({ name: `x${i}`, cardinality: c })));
  const rng = seededRng(7);
  // 10,000 records: more than two chunks, and a ragged last chunk.
  const rows = Array.from({ length: 10_000 }, () => cards.map((c) => rng.nextUint32() % c));
  const store = createRecordStore(schema, { rows });

  it("matches a brute-force count for many attribute sets, in any order", () => {
    for (const query of [[0], [4], [1, 2], [5, 0, 3], [0, 1, 2, 3, 5], [2, 4, 5]]) {
      const sorted = [...query].sort((a, b) => a - b);
      const table = contingencyTable(store, query, "count");
      expect(table.attributes).toEqual(sorted);
      expect(table.cardinalities).toEqual(sorted.map((a) => cards[a]));
      expect(Array.from(table.cells)).toEqual(Array.from(bruteForceTable(store, sorted)));
    }
  });

  it("gives fractions by default, and the empty set gives the total", () => {
    const fractions = contingencyTable(store, [1]);
    expect(fractions.unit).toBe("fraction");
    const counts = contingencyTable(store, [1], "count");
    fractions.cells.forEach((f, c) => {
      expect(f).toBeCloseTo(counts.cells[c]! / 10_000, 15);
    });
    expect(Array.from(contingencyTable(store, [], "count").cells)).toEqual([10_000]);
  });

  it("rejects attributes outside the store and repeats", () => {
    expect(() => contingencyTable(store, [6])).toThrow(
      /contingencyTable: attribute indices must be in \[0, 6\) \(got 6\)/,
    );
    expect(() => contingencyTable(store, [1, 1])).toThrow(/distinct/);
  });
});
