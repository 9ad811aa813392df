import { generateBayesNet, parseBinaryMatrix } from "@calm-ldp/datasets";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { runChowLiu } from "./run-chow-liu.js";
import { runClassification } from "./run-classification.js";
import { runIndependenceTests } from "./run-independence.js";

describe("runClassification", () => {
  // 5 binary attributes; attribute 4 (the label) copies one of its two parents w.p. 0.8.
  const population = generateBayesNet(
    { n: 3000, d: 5, maxParents: 2, strength: 0.8 },
    seededRng(1),
    seededRng(2),
  );
  const config = {
    features: [0, 1, 2, 3],
    label: 4,
    n: [4000],
    eps: [1, 4],
    methods: ["calm", "fc", "nope"],
    reps: 1,
    seed: 7,
    classify: { trainingRecords: 256 },
  };

  it("reports every method, NoNoise and Majority at every eps, and refusals as rows", async () => {
    const messages: string[] = [];
    const rows = await runClassification(population, config, { onProgress: (_d, _t, m) => messages.push(m) });
    expect(rows).toHaveLength(2 * (2 + 3));
    expect(messages).toHaveLength(1 + 2 * 3);
    for (const eps of [1, 4]) {
      const at = (m: string) => rows.find((r) => r.method === m && r.eps === eps)!;
      expect(at("majority").users).toBe(3200);
      expect(at("majority").testRecords).toBe(600);
      // The label is a noisy copy of its parents: the true marginal must beat always answering the majority.
      expect(at("nonoise").misclassification).toBeLessThan(at("majority").misclassification - 0.05);
      expect(Number.isNaN(at("nope").misclassification)).toBe(true);
      expect(at("nope").error).toMatch(/createMethod/);
      for (const m of ["calm", "fc"]) expect(at(m).misclassification).toBeGreaterThanOrEqual(0);
    }
    const again = await runClassification(population, { ...config, methods: ["fc"], eps: [4] });
    expect(again.find((r) => r.method === "fc")!.misclassification).toBe(
      rows.find((r) => r.method === "fc" && r.eps === 4)!.misclassification,
    );
  });

  it("refuses bad settings", async () => {
    await expect(runClassification(population, { ...config, label: 9 })).rejects.toThrow(
      /indices in \[0, 5\)/,
    );
    await expect(runClassification(population, { ...config, features: [0, 4] })).rejects.toThrow(/distinct/);
    await expect(runClassification(population, { ...config, eps: [] })).rejects.toThrow(/eps must be/);
    await expect(runClassification(population, { ...config, testFraction: 1 })).rejects.toThrow(
      /testFraction/,
    );
    await expect(runClassification(population, { ...config, reps: 0 })).rejects.toThrow(/reps/);
  });
});

describe("runIndependenceTests", () => {
  const rng = seededRng(3);
  const rows = 4000;
  const a0 = Array.from({ length: rows }, () => rng.nextUint32() & 1);
  const a1 = a0.map((v) => (rng.nextFloat() < 0.9 ? v : rng.nextUint32() & 1));
  const a2 = Array.from({ length: rows }, () => rng.nextUint32() & 1);
  const population = parseBinaryMatrix(a0.map((v, r) => `${v},${a1[r]},${a2[r]}`).join("\n"));

  it("compares the private decision with the non-private one", () => {
    const out = runIndependenceTests(population, {
      pairs: [
        [1, 0],
        [0, 2],
      ],
      n: 20_000,
      eps: [2],
      methods: ["inpht", "margps", "nope"],
      reps: 3,
      seed: 1,
    });
    expect(out).toHaveLength(3 * 3 * 2);
    for (const row of out) {
      expect(row.pair[0]).toBeLessThan(row.pair[1]);
      if (row.pair[1] === 1) expect(row.trueReject).toBe(true); // a strong copy
      if (row.method === "nope") {
        // a method that cannot run makes no decision, so no error of either type
        expect(row.error).toMatch(/createMethod/);
        expect(row.typeI || row.typeII || row.reject).toBe(false);
        continue;
      }
      expect(row.typeI).toBe(row.reject && !row.trueReject);
      expect(row.typeII).toBe(!row.reject && row.trueReject);
      expect(row.critical).toBeCloseTo(3.841458820694124, 9);
    }
    // eps = 2 and n = 20,000 users: the strong pair's private statistic is far above the critical value
    const strong = out.filter((r) => r.method !== "nope" && r.pair[1] === 1);
    expect(strong.every((r) => r.reject)).toBe(true);
    expect(() =>
      runIndependenceTests(population, { pairs: [[0, 0]], n: 100, eps: [1], methods: [], reps: 1, seed: 1 }),
    ).toThrow(/two distinct attribute indices/);
  });
});

describe("runChowLiu", () => {
  const population = generateBayesNet(
    { n: 5000, d: 5, maxParents: 1, strength: 0.9 },
    seededRng(4),
    seededRng(5),
  );

  it("scores the private tree by the true mutual information of its edges", () => {
    const out = runChowLiu(population, {
      n: 50_000,
      eps: [0.5, 8],
      methods: ["inpht", "nope"],
      reps: 2,
      seed: 3,
    });
    expect(out).toHaveLength(2 * 2 + 2 * 2 * 2);
    for (const row of out) {
      if (row.method === "nope") {
        expect(row.error).toMatch(/createMethod/);
        continue;
      }
      // No tree has more true mutual information than the Chow-Liu tree of the true marginals.
      expect(row.mutualInformation).toBeLessThanOrEqual(row.optimum + 1e-12);
      if (row.method === "nonoise") expect(row.sharedEdges).toBe(4);
    }
    // eps = 8, 50,000 users, strongly copied edges: the private tree is the true one.
    const sharp = out.filter((r) => r.method === "inpht" && r.eps === 8);
    for (const row of sharp) expect(row.sharedEdges).toBe(4);
  });
});
