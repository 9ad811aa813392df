import { allQueries } from "@calm-ldp/marginal-algebra";
import { describe, expect, it } from "vitest";
import { groupIndex } from "./group-index.js";

describe("groupIndex", () => {
  it("indexOf is the position in allQueries' lexicographic order", () => {
    const index = groupIndex(7, 3);
    allQueries(7, 3).forEach((q, i) => {
      expect(index.indexOf(q)).toBe(i);
    });
    expect(index.indexOf([0, 1])).toBe(-1);
    expect(index.indexOf([2, 1, 5])).toBe(-1);
  });

  it("containing lists exactly the groups that contain a set", () => {
    const index = groupIndex(6, 3);
    const got = index.containing([1, 4]).sort((x, y) => x - y);
    const expected = index.groups
      .map((g, i) => (g.includes(1) && g.includes(4) ? i : -1))
      .filter((i) => i >= 0);
    expect(got).toEqual(expected);
    expect(index.containing([0, 2, 5])).toEqual([index.indexOf([0, 2, 5])]);
    expect(index.containing([])).toHaveLength(20);
  });
});
