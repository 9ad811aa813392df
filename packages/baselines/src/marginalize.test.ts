import { createTable, projectTable } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { marginalizeMixed } from "./marginalize.js";

describe("marginalizeMixed", () => {
  it("equals marginal-algebra's projectTable for every subset of a mixed-radix table", () => {
    const cards = [3, 2, 4, 5];
    const rng = seededRng(5);
    const table = createTable([0, 1, 2, 3], cards);
    for (let u = 0; u < table.cells.length; u++) table.cells[u] = rng.nextFloat() - 0.3;
    for (let mask = 0; mask < 16; mask++) {
      const positions = [0, 1, 2, 3].filter((i) => (mask >>> i) & 1);
      const expected = projectTable(table, positions);
      const got = marginalizeMixed(table.cells, cards, positions, new Float64Array(expected.cells.length));
      for (let c = 0; c < got.length; c++) expect(got[c]).toBeCloseTo(expected.cells[c]!, 12);
    }
  });
});
