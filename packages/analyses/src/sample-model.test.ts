import { contingencyTable, createTable } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { InvalidAnalysisError } from "./errors.js";
import { marginalModel } from "./marginal-model.js";
import { sampleMarginal } from "./sample-marginal.js";
import { sampleModel } from "./sample-model.js";
import { viewsModel } from "./views-model.js";

/** |observed - n p| within z binomial standard deviations, for every cell. */
function expectFrequencies(
  observed: ArrayLike<number>,
  probabilities: ArrayLike<number>,
  n: number,
  z: number,
) {
  for (let u = 0; u < probabilities.length; u++) {
    const p = probabilities[u]!;
    const sd = Math.sqrt(n * p * (1 - p));
    expect(Math.abs(observed[u]! - n * p), `cell ${u}`).toBeLessThanOrEqual(z * sd + 1e-9);
  }
}

describe("sampleMarginal", () => {
  it("draws cells with the table's probabilities", () => {
    const table = createTable([1, 4], [3, 2]);
    table.cells.set([0.05, 0.15, 0.3, 0.1, 0.25, 0.15]);
    const n = 200_000;
    const { store, attributes, clippedMass } = sampleMarginal(table, n, seededRng(7));
    expect(attributes).toEqual([1, 4]);
    expect(clippedMass).toBe(0);
    expect(store.size).toBe(n);
    expect(store.schema.attributes.map((a) => a.name)).toEqual(["a1", "a4"]);
    const counts = contingencyTable(store, [0, 1], "count").cells;
    // z = 5 per cell: 6 cells, a false alarm has probability ~ 6 * 6e-7.
    expectFrequencies(counts, table.cells, n, 5);
  });

  it("is reproducible from the seed and ignores negative cells", () => {
    const table = createTable([0], [4]);
    table.cells.set([0.6, -0.2, 0.5, 0.1]);
    const a = sampleMarginal(table, 5000, seededRng(3));
    const b = sampleMarginal(table, 5000, seededRng(3));
    expect(Array.from(a.store.columns[0]!)).toEqual(Array.from(b.store.columns[0]!));
    expect(a.clippedMass).toBeCloseTo(0.2 / 1.4, 12);
    const counts = contingencyTable(a.store, [0], "count").cells;
    expect(counts[1]).toBe(0);
    // 0.6 / 1.2 = 0.5 of the draws in cell 0; z = 5.
    expectFrequencies(counts, [0.5, 0, 5 / 12, 1 / 12], 5000, 5);
  });

  it("takes names and labels from a schema, and checks them", () => {
    const table = createTable([0, 1], [2, 3]);
    table.cells.fill(1 / 6);
    const schema = {
      attributes: [
        { name: "x", labels: ["no", "yes"] },
        { name: "y", labels: ["a", "b", "c"] },
      ],
    };
    const { store } = sampleMarginal(table, 10, seededRng(1), { schema });
    expect(store.schema.attributes.map((a) => a.name)).toEqual(["x", "y"]);
    const bad = { attributes: [schema.attributes[0]!, { name: "y", labels: ["a", "b"] }] };
    expect(() => sampleMarginal(table, 10, seededRng(1), { schema: bad })).toThrow(/must have 3 labels/);
  });

  it("refuses bad input with typed errors", () => {
    const table = createTable([0], [2]);
    table.cells.set([0.5, 0.5]);
    expect(() => sampleMarginal(table, -1, seededRng(1))).toThrow(InvalidAnalysisError);
    expect(() => sampleMarginal(table, 1.5, seededRng(1))).toThrow(/n must be an integer/);
    const empty = createTable([0], [2]);
    expect(() => sampleMarginal(empty, 10, seededRng(1))).toThrow(/positive mass/);
    const two = createTable([0, 1], [2, 2]);
    expect(() => marginalModel({ ...two, attributes: [1, 0] })).toThrow(/ascending/);
    expect(() => marginalModel({ ...table, cells: new Float64Array(3) })).toThrow(/must have 2 cells/);
  });

  it("uses a 16-bit column for large cardinalities", () => {
    const table = createTable([0], [300]);
    table.cells.fill(1 / 300);
    const { store } = sampleMarginal(table, 1000, seededRng(2));
    expect(store.columns[0]).toBeInstanceOf(Uint16Array);
    expect(Math.max(...store.columns[0]!)).toBeLessThan(300);
  });
});

describe("viewsModel", () => {
  // A Markov chain a0 -> a1 -> a2 over binary attributes.
  const p0 = [0.3, 0.7];
  const p1given0 = [
    [0.9, 0.1],
    [0.2, 0.8],
  ];
  const p2given1 = [
    [0.6, 0.4],
    [0.1, 0.9],
  ];
  const joint = new Float64Array(8);
  for (let a = 0; a < 2; a++)
    for (let b = 0; b < 2; b++)
      for (let c = 0; c < 2; c++) joint[a * 4 + b * 2 + c] = p0[a]! * p1given0[a]![b]! * p2given1[b]![c]!;
  const view = (attributes: number[]) => {
    const t = createTable([0, 1, 2], [2, 2, 2]);
    t.cells.set(joint);
    // project by summing over the missing attribute
    const out = createTable(attributes, [2, 2]);
    for (let u = 0; u < 8; u++) {
      const v = [u >> 2, (u >> 1) & 1, u & 1];
      out.cells[v[attributes[0]!]! * 2 + v[attributes[1]!]!] += joint[u]!;
    }
    return out;
  };

  it("is the junction tree (maximum-entropy) distribution of a chain of views", () => {
    const model = viewsModel([view([1, 2]), view([0, 1])]);
    expect(model.decomposable).toBe(true);
    expect(model.unusedTables).toBe(0);
    expect(model.attributes).toEqual([0, 1, 2]);
    expect(model.steps.map((s) => [s.given, s.fresh])).toEqual([
      [[], [1, 2]],
      [[1], [0]],
    ]);
    const n = 300_000;
    const { store, emptyConditionals } = sampleModel(model, n, seededRng(11));
    expect(emptyConditionals).toBe(0);
    const counts = contingencyTable(store, [0, 1, 2], "count").cells;
    // The chain's joint is the max-entropy law of its two edge marginals; z = 5 per cell (8 cells).
    expectFrequencies(counts, joint, n, 5);
  });

  it("flags a non-decomposable family (a triangle) and draws uncovered attributes uniformly", () => {
    const model = viewsModel([view([0, 1]), view([1, 2]), view([0, 2])], { cardinalities: [2, 2, 2, 3] });
    expect(model.decomposable).toBe(false);
    expect(model.unusedTables).toBe(1);
    expect(model.attributes).toEqual([0, 1, 2, 3]);
    const n = 60_000;
    const { store } = sampleModel(model, n, seededRng(5));
    const last = contingencyTable(store, [3], "count").cells;
    // uniform over 3 values; z = 5
    expectFrequencies(last, [1 / 3, 1 / 3, 1 / 3], n, 5);
    // the first two steps' marginals are kept exactly in law: check the [0,1] view; z = 5
    expectFrequencies(contingencyTable(store, [0, 1], "count").cells, view([0, 1]).cells, n, 5);
  });

  it("restricts views to the wanted attributes and counts conditionals without mass", () => {
    const a = createTable([0, 1], [2, 2]);
    a.cells.set([0.5, 0, 0, 0.5]); // a1 = a0
    const b = createTable([1, 2], [2, 2]);
    b.cells.set([0, 0, 0.5, 0.5]); // a1 = 1 always: inconsistent with a
    const model = viewsModel([a, b]);
    const out = sampleModel(model, 2000, seededRng(9));
    expect(out.emptyConditionals).toBe(1); // a1 = 0 was reached, but b has no mass there
    const only = viewsModel([a, b], { attributes: [0, 2] });
    expect(only.attributes).toEqual([0, 2]);
    expect(only.steps.every((s) => s.table.attributes.length === 1)).toBe(true);
  });

  it("refuses inconsistent cardinalities and unknown attributes", () => {
    const a = createTable([0, 1], [2, 2]);
    a.cells.fill(0.25);
    const b = createTable([1, 2], [3, 2]);
    b.cells.fill(1 / 6);
    expect(() => viewsModel([a, b])).toThrow(/attribute 1 must have one cardinality/);
    expect(() => viewsModel([a], { attributes: [0, 5] })).toThrow(/attribute 5 is in no view/);
    expect(() => viewsModel([])).toThrow(/at least one attribute/);
  });
});
