import { createTable } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { classifyFromMarginal, encodeFeatures, majorityLabel, misclassificationRate } from "./classify.js";
import { loadLibsvm, trainSvm } from "./svm.js";

describe("trainSvm (libsvm-js)", () => {
  it("learns XOR with an RBF kernel and a line with a linear one", async () => {
    const xor = await trainSvm(
      [
        [0, 0],
        [1, 1],
        [1, 0],
        [0, 1],
      ],
      [0, 0, 1, 1],
      { gamma: 1, cost: 10 },
    );
    expect([xor.predict([0.1, 0.1]), xor.predict([0.9, 0.9]), xor.predict([0.9, 0.1])]).toEqual([0, 0, 1]);
    expect(xor.features).toBe(2);
    expect(xor.supportVectors).toBeGreaterThan(0);
    xor.free();
    expect(() => xor.predict([0, 0])).toThrow(/freed/);
    const line = await trainSvm(
      Array.from({ length: 40 }, (_, i) => [i / 40]),
      Array.from({ length: 40 }, (_, i) => (i < 20 ? 3 : 7)),
      { kernel: "linear", cost: 100 },
    );
    expect([line.predict([0.1]), line.predict([0.9])]).toEqual([3, 7]);
    line.free();
  });

  it("loads once, removes the exit-on-unhandled-rejection listener, and checks its input", async () => {
    const before = process.listeners("unhandledRejection").length;
    const [a, b] = await Promise.all([loadLibsvm(), loadLibsvm()]);
    expect(a).toBe(b);
    expect(process.listeners("unhandledRejection").length).toBe(before);
    await expect(trainSvm([], [])).rejects.toThrow(/non-empty/);
    await expect(trainSvm([[0], [1, 2]], [0, 1])).rejects.toThrow(/sample 1 must have 1 features/);
    await expect(trainSvm([[0], [1]], [0, 0.5])).rejects.toThrow(/integers/);
    await expect(trainSvm([[0], [1]], [0, 1], { cost: -1 })).rejects.toThrow(/cost must be/);
    await expect(trainSvm([[0], [1]], [0, 1], { kernel: "sigmoid" as never })).rejects.toThrow(/kernel/);
  });
});

describe("classifying from a marginal", () => {
  it("encodes features one-hot or ordinally", () => {
    expect(encodeFeatures([2, 0], [3, 2])).toEqual([0, 0, 1, 1, 0]);
    expect(encodeFeatures([2, 1], [3, 2], "ordinal")).toEqual([1, 1]);
    expect(() => encodeFeatures([0], [2], "binary" as never)).toThrow(/encoding/);
  });

  it("learns the rule of a noiseless marginal and scores a test table", async () => {
    // attributes 0 (3 values) and 2 (label): label = 1 exactly when a0 = 2; plus a noise attribute 1
    const table = createTable([0, 1, 2], [3, 2, 2]);
    for (let a = 0; a < 3; a++)
      for (let b = 0; b < 2; b++) table.cells[(a * 2 + b) * 2 + (a === 2 ? 1 : 0)] = 1 / 6;
    const classifier = await classifyFromMarginal(table, 2, seededRng(1), { trainingRecords: 300 });
    expect(classifier.constant).toBe(false);
    expect(Array.from(classifier.predictions)).toEqual([0, 0, 0, 0, 1, 1]);
    expect(misclassificationRate(classifier.predictions, table, 2)).toBeCloseTo(0, 12);
    const test = createTable([0, 1, 2], [3, 2, 2], { unit: "count" });
    test.cells[0] = 8; // a0=0,b=0,label=0: right
    test.cells[1] = 2; // a0=0,b=0,label=1: wrong
    test.cells[9] = 10; // a0=2,b=0,label=1: right
    expect(misclassificationRate(classifier.predictions, test, 2)).toBeCloseTo(0.1, 12);
    expect(majorityLabel(test, 2)).toBe(1); // 12 of the 20 test records have label 1
    expect(majorityLabel(table, 2)).toBe(0);
  });

  it("predicts a constant when the synthetic labels are all equal", async () => {
    const table = createTable([0, 1], [2, 2]);
    table.cells.set([0.5, 0, 0.5, -0.01]);
    const classifier = await classifyFromMarginal(table, 1, seededRng(2), { trainingRecords: 50 });
    expect(classifier).toMatchObject({ constant: true, supportVectors: 0 });
    expect(Array.from(classifier.predictions)).toEqual([0, 0]);
    expect(classifier.clippedMass).toBeGreaterThan(0);
  });

  it("refuses a non-binary label and bad sizes", async () => {
    const table = createTable([0, 1], [2, 3]);
    table.cells.fill(1 / 6);
    await expect(classifyFromMarginal(table, 1, seededRng(1))).rejects.toThrow(
      /label attribute must be binary/,
    );
    await expect(classifyFromMarginal(table, 5, seededRng(1))).rejects.toThrow(/must be one of the table's/);
    const ok = createTable([0, 1], [3, 2]);
    ok.cells.fill(1 / 6);
    await expect(classifyFromMarginal(ok, 1, seededRng(1), { trainingRecords: 1 })).rejects.toThrow(
      /trainingRecords/,
    );
    expect(() => misclassificationRate([0, 1], ok, 1)).toThrow(/one entry per feature cell/);
  });
});
