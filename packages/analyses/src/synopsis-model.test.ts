import { generateBayesNet } from "@calm-ldp/datasets";
import { contingencyTable, createTable } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { sampleModel } from "./sample-model.js";
import { synopsisModel } from "./synopsis-model.js";

describe("synopsisModel", () => {
  const d = 6;
  const data = generateBayesNet({ n: 100_000, d, maxParents: 1, strength: 0.8 }, seededRng(1), seededRng(2));
  const truth = { query: (attributes: readonly number[]) => contingencyTable(data.store, attributes) };
  const cards = new Array(d).fill(2);

  it("grows the generating tree from the true marginals with one parent each", () => {
    const model = synopsisModel(truth, cards, { maxParents: 1 });
    expect(model.attributes).toEqual([0, 1, 2, 3, 4, 5]);
    expect(model.decomposable).toBe(true);
    expect(model.steps[0]!.fresh).toHaveLength(2);
    const edges = model.steps.map((s) => s.table.attributes.join(",")).sort();
    const expected = data.network.nodes
      .map((node, i) => (node.parents.length ? [node.parents[0]!, i].join(",") : undefined))
      .filter((e) => e !== undefined)
      .sort();
    expect(edges).toEqual(expected);
    // Records drawn from it have the tree's edge marginals: z = 5 per cell (binomial sd), 20 cells.
    const n = 200_000;
    const { store } = sampleModel(model, n, seededRng(3));
    for (const step of model.steps) {
      const got = contingencyTable(store, step.table.attributes, "count").cells;
      step.table.cells.forEach((p, u) => {
        expect(Math.abs(got[u]! - n * p)).toBeLessThanOrEqual(5 * Math.sqrt(n * p * (1 - p)) + 1e-9);
      });
    }
  });

  it("uses up to maxParents parents, respects maxCells and the attribute subset", () => {
    const two = synopsisModel(truth, cards);
    expect(two.steps.slice(1).every((s) => s.given.length >= 1 && s.given.length <= 2)).toBe(true);
    expect(two.steps.slice(2).some((s) => s.given.length === 2)).toBe(true);
    const small = synopsisModel(truth, cards, { maxCells: 4 });
    expect(small.steps.every((s) => s.table.cells.length <= 4)).toBe(true);
    const none = synopsisModel(truth, cards, { maxParents: 0, attributes: [4, 1] });
    expect(none.attributes).toEqual([1, 4]);
    expect(none.steps.map((s) => s.table.attributes)).toEqual([[1], [4]]);
  });

  it("refuses bad input", () => {
    expect(() => synopsisModel({} as never, cards)).toThrow(/query/);
    expect(() => synopsisModel(truth, [2, 0])).toThrow(/cardinalities\[1\]/);
    expect(() => synopsisModel(truth, cards, { maxParents: -1 })).toThrow(/maxParents/);
    expect(() => synopsisModel(truth, cards, { attributes: [7] })).toThrow(/indices in \[0, 6\)/);
    const liar = { query: () => createTable([0], [2]) };
    expect(() => synopsisModel(liar, cards)).toThrow(/answered \[0,1\] over other attributes/);
  });
});
