import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cellCount, cellIndex, cellValues, recordCellIndex } from "./cell-index.js";

describe("mixed-radix cell order", () => {
  it("puts the first attribute most significant", () => {
    // cards (2, 3): (v1, v2) -> v1 * 3 + v2.
    expect(cellIndex([0, 0], [2, 3])).toBe(0);
    expect(cellIndex([0, 2], [2, 3])).toBe(2);
    expect(cellIndex([1, 0], [2, 3])).toBe(3);
    expect(cellIndex([1, 2], [2, 3])).toBe(5);
    expect(cellValues(4, [2, 3])).toEqual([1, 1]);
    expect(cellIndex([], [])).toBe(0);
    expect(cellCount([])).toBe(1);
  });

  it("cellValues inverts cellIndex for every cell (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 6 }), fc.nat(), (cards, seed) => {
        const size = cellCount(cards);
        const index = seed % size;
        expect(cellIndex(cellValues(index, cards), cards)).toBe(index);
      }),
    );
  });

  it("recordCellIndex projects a whole record onto a view", () => {
    const record = [1, 0, 2, 1];
    expect(recordCellIndex(record, [0, 2], [2, 3])).toBe(cellIndex([1, 2], [2, 3]));
    expect(recordCellIndex(record, [], [])).toBe(0);
  });

  it("rejects out-of-range values and oversized tables, naming the function", () => {
    expect(() => cellIndex([0, 3], [2, 3])).toThrow(
      /cellIndex: value 1 must be an integer in \[0, 3\) \(got 3\)/,
    );
    expect(() => cellIndex([0], [2, 3])).toThrow(/one entry per attribute/);
    expect(() => cellValues(6, [2, 3])).toThrow(/cellValues: index must be an integer in \[0, 6\) \(got 6\)/);
    expect(() => recordCellIndex([0, 5], [1], [2])).toThrow(/recordCellIndex: value of attribute 1/);
    expect(() => cellCount(new Array(32).fill(2))).toThrow(/at most 2\^31 cells/);
  });
});
