import { seededRng } from "@calm-ldp/random";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidInputError } from "./errors.js";
import { projectionMap } from "./projection-map.js";
import {
  createTable,
  expandTable,
  normalizeTable,
  projectTable,
  tableTotal,
  toCounts,
  toFractions,
  uniformTable,
  validateTable,
} from "./table.js";
import { bruteForceProject, randomDistribution } from "./test-support.js";

describe("tables", () => {
  it("createTable checks its shape and copies cells", () => {
    const cells = [1, 2, 3, 4, 5, 6];
    const table = createTable([1, 4], [2, 3], { cells, unit: "count" });
    cells[0] = 99;
    expect(table.cells[0]).toBe(1);
    expect(tableTotal(table)).toBe(21);
    expect(() => createTable([4, 1], [2, 3])).toThrow(/strictly ascending/);
    expect(() => createTable([1], [2], { cells: [1] })).toThrow(/prod c_i = 2 entries \(got 1\)/);
    expect(() => createTable([1], [2, 3])).toThrow(InvalidInputError);
    expect(() => validateTable({ ...table, cells: Float64Array.of(0, 0, 0, 0, 0, Number.NaN) })).toThrow(
      /cell 5/,
    );
  });

  it("projects like the brute-force sum over decoded cells (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 5 }),
        fc.integer(),
        fc.integer(),
        (cards, seed, pick) => {
          const attributes = cards.map((_, i) => 2 * i + 1);
          const table = randomDistribution(seededRng(seed >>> 0), attributes, cards);
          const subset = attributes.filter((_, i) => (pick >>> i) & 1);
          const projected = projectTable(table, [...subset].reverse());
          expect(projected.attributes).toEqual(subset);
          const expected = bruteForceProject(table, subset);
          projected.cells.forEach((value, c) => {
            expect(value).toBeCloseTo(expected[c]!, 12);
          });
        },
      ),
    );
  });

  it("projectionMap maps cells of (2, 3, 2) onto the outer attributes", () => {
    expect(Array.from(projectionMap([2, 3, 2], [0, 2]))).toEqual([0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3]);
    expect(Array.from(projectionMap([2, 3], []))).toEqual([0, 0, 0, 0, 0, 0]);
    expect(() => projectionMap([2, 3], [1, 0])).toThrow(/strictly ascending/);
  });

  it("rejects a projection onto attributes the table does not have", () => {
    expect(() => projectTable(createTable([0, 1], [2, 2]), [2])).toThrow(
      /projectTable: attributes must be a subset/,
    );
  });

  it("expandTable spreads evenly and projects back to the table", () => {
    const table = createTable([2], [3], { cells: [0.6, 0.3, 0.1] });
    const expanded = expandTable(table, [0, 2, 5], [2, 3, 2]);
    expect(expanded.cells[0]).toBeCloseTo(0.15, 15);
    expect(Array.from(projectTable(expanded, [2]).cells).map((x) => +x.toFixed(12))).toEqual([0.6, 0.3, 0.1]);
    expect(() => expandTable(table, [0, 2], [2, 4])).toThrow(/cardinality of attribute 2 must be 3/);
    expect(() => expandTable(table, [0, 1], [2, 2])).toThrow(/must include the table's/);
  });

  it("converts between counts and fractions", () => {
    const counts = createTable([0], [2], { cells: [30, 10], unit: "count" });
    const fractions = toFractions(counts);
    expect(fractions.unit).toBe("fraction");
    expect(Array.from(fractions.cells)).toEqual([0.75, 0.25]);
    expect(Array.from(toCounts(fractions, 40).cells)).toEqual([30, 10]);
    expect(Array.from(normalizeTable(counts).cells)).toEqual([0.75, 0.25]);
    expect(() => normalizeTable(createTable([0], [2]))).toThrow(/total must be > 0 \(got 0\)/);
    expect(Array.from(uniformTable([0, 1], [2, 2]).cells)).toEqual([0.25, 0.25, 0.25, 0.25]);
  });
});
