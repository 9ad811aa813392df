import { describe, expect, it } from "vitest";
import { l1, maxAbsError, meanAnswerErrors, sse, tvd } from "./metrics.js";
import { createTable } from "./table.js";

describe("metrics", () => {
  const truth = createTable([0, 1], [2, 2], { cells: [0.4, 0.1, 0.2, 0.3] });
  const estimate = createTable([0, 1], [2, 2], { cells: [0.5, 0.1, 0.1, 0.3] });

  it("computes SSE, L1, TVD and max abs error by their formulas", () => {
    expect(sse(estimate, truth)).toBeCloseTo(0.02, 15);
    expect(l1(estimate, truth)).toBeCloseTo(0.2, 15);
    expect(tvd(estimate, truth)).toBeCloseTo(0.1, 15);
    expect(maxAbsError(estimate, truth)).toBeCloseTo(0.1, 15);
    expect(sse([1, 2], [1, 2])).toBe(0);
    expect(tvd([1, 0], [0, 1])).toBe(1);
  });

  it("refuses tables over different attributes, units or sizes", () => {
    expect(() => sse(createTable([0, 2], [2, 2]), truth)).toThrow(
      /sse: tables must be over the same attributes/,
    );
    expect(() => tvd(createTable([0, 1], [2, 2], { unit: "count" }), truth)).toThrow(/same unit/);
    expect(() => l1([1, 2, 3], [1, 2])).toThrow(/same number of cells \(2\) \(got 3\)/);
  });

  it("meanAnswerErrors averages each query's SSE and TVD against its truth", () => {
    const one = createTable([0], [2], { cells: [0.5, 0.5] });
    const two = createTable([1], [2], { cells: [1, 0] });
    // The synopsis answers (0.6, 0.4) for every query: SSE 0.02 and 0.32, TVD 0.1 and 0.4.
    const synopsis = { query: (q: readonly number[]) => createTable(q, [2], { cells: [0.6, 0.4] }) };
    const errors = meanAnswerErrors(synopsis, [[0], [1]], [one, two]);
    expect(errors.sse).toBeCloseTo((0.02 + 0.32) / 2, 15);
    expect(errors.tvd).toBeCloseTo((0.1 + 0.4) / 2, 15);
  });
});
