import { describe, expect, it } from "vitest";
import { groupCategories } from "./group-categories.js";
import { summarizeRows } from "./summarize-rows.js";
import { datasetOf } from "./test-support.js";

describe("groupCategories", () => {
  it("merges named categories and records the rule", () => {
    const data = datasetOf(
      [
        [0, 1, 2, 3, 2],
        [1, 0, 1, 0, 1],
      ],
      [4, 2],
    );
    const grouped = groupCategories(data, { a0: { low: ["0", "1"], high: ["2", "3"] } });
    expect(grouped.schema.attributes[0]!.labels).toEqual(["low", "high"]);
    expect(Array.from(grouped.store.columns[0]!)).toEqual([0, 0, 1, 1, 1]);
    expect(grouped.store.columns[1]).toBe(data.store.columns[1]);
    expect(grouped.info.attributes[0]!.cardinality).toBe(2);
    expect(grouped.info.preprocessing.at(-1)).toMatch(/a0 grouped into low = \{0, 1\}; high = \{2, 3\}/);
    expect(data.schema.attributes[0]!.labels).toHaveLength(4);
  });

  it("refuses incomplete or overlapping groups and unknown names", () => {
    const data = datasetOf([[0, 1, 2]], [3]);
    expect(() => groupCategories(data, { a0: { x: ["0"], y: ["1"] } })).toThrow(
      /every category must be in a group/,
    );
    expect(() => groupCategories(data, { a0: { x: ["0", "1"], y: ["1", "2"] } })).toThrow(/one group only/);
    expect(() => groupCategories(data, { a0: { x: ["0", "1", "9"], y: ["2"] } })).toThrow(/no category/);
    expect(() => groupCategories(data, { zz: { x: ["0"] } })).toThrow(/must exist/);
    expect(() => groupCategories(data, { a0: { x: ["0", "1", "2"] } })).toThrow(/at least 2 groups/);
  });
});

describe("summarizeRows", () => {
  it("averages numbers, counts booleans and failures per group", () => {
    const rows = [
      { method: "a", eps: 1, error: 0.2, flag: true },
      { method: "a", eps: 1, error: 0.4, flag: false },
      { method: "a", eps: 1, error: Number.NaN, flag: true, note: "x" },
      { method: "b", eps: 1, error: 0.1, flag: false },
    ];
    const out = summarizeRows(rows, ["method", "eps"], ["error", "flag"]);
    expect(out).toHaveLength(2);
    expect(out[0]).toMatchObject({ method: "a", eps: 1, reps: 2, failures: 1, flag: 2 });
    expect(out[0]!.error).toBeCloseTo(0.3, 12);
    expect(out[0]!.errorStd).toBeCloseTo(Math.sqrt(0.02), 12);
    expect(out[1]).toMatchObject({ method: "b", error: 0.1, errorStd: 0, reps: 1, failures: 0, flag: 0 });
    const infinite = summarizeRows([{ m: "x", v: Number.POSITIVE_INFINITY }], ["m"], ["v"]);
    expect(infinite[0]).toMatchObject({ v: Number.POSITIVE_INFINITY, reps: 1, failures: 0 });
    const withError = summarizeRows([{ m: "x", v: Number.NaN, error: "too large" }], ["m"], ["v"]);
    expect(withError[0]).toMatchObject({ reps: 0, failures: 1, error: "too large" });
    expect(Number.isNaN(withError[0]!.v)).toBe(true);
  });
});
