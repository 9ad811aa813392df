import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { generateIid } from "./generate-iid.js";
import { columnSums } from "./test-support.js";

describe("generateIid", () => {
  it("realises P(1) = p for binary attributes (z <= 5) and labels them 0/1", () => {
    const n = 200_000;
    const { store, schema, info } = generateIid({ n, d: 4, p: [0.3, 0.5, 0.01, 1] }, seededRng(1));
    expect(schema.attributes[0]).toEqual({ name: "x0", labels: ["0", "1"] });
    expect(info.attributes[0]!.kind).toBe("binary");
    const sums = columnSums(store.columns);
    // Binomial(n, p): sd = sqrt(n p (1 - p)); z <= 5 (seeded, 3 checks).
    [0.3, 0.5, 0.01].forEach((p, i) => {
      expect(Math.abs(sums[i]! - n * p) / Math.sqrt(n * p * (1 - p))).toBeLessThan(5);
    });
    expect(sums[3]).toBe(n);
  });

  it("realises given categorical distributions (z <= 5) and uniform ones by default", () => {
    const n = 200_000;
    const probs = [0.2, 0.5, 0.3];
    const { store, schema } = generateIid(
      { n, d: 2, cardinality: [3, 5], distributions: [probs, [1, 1, 1, 1, 1]] },
      seededRng(2),
    );
    expect(schema.attributes[1]!.labels).toEqual(["0", "1", "2", "3", "4"]);
    const counts = (column: ArrayLike<number>, c: number) => {
      const out = new Array(c).fill(0);
      for (let r = 0; r < column.length; r++) out[column[r]!]++;
      return out;
    };
    counts(store.columns[0]!, 3).forEach((count, x) => {
      const p = probs[x]!;
      expect(Math.abs(count - n * p) / Math.sqrt(n * p * (1 - p))).toBeLessThan(5);
    });
    for (const count of counts(store.columns[1]!, 5)) {
      expect(Math.abs(count - n / 5) / Math.sqrt(n * 0.16)).toBeLessThan(5);
    }
  });

  it("is reproducible from the seed", () => {
    const a = generateIid({ n: 1000, d: 3 }, seededRng(5));
    const b = generateIid({ n: 1000, d: 3 }, seededRng(5));
    expect(a.store.columns).toEqual(b.store.columns);
    expect(a.store.columns).not.toEqual(generateIid({ n: 1000, d: 3 }, seededRng(6)).store.columns);
  });

  it("rejects bad parameters with the function, condition and value", () => {
    const rng = seededRng(1);
    expect(() => generateIid({ n: 0, d: 1 }, rng)).toThrow(
      "generateIid: n must be an integer in [1, 2^32] (got 0)",
    );
    expect(() => generateIid({ n: 10, d: 2, p: 1.5 }, rng)).toThrow(
      "generateIid: p must be a probability in [0, 1] (got 1.5)",
    );
    expect(() => generateIid({ n: 10, d: 2, p: [0.1] }, rng)).toThrow(/p must be one number or 2 numbers/);
    expect(() => generateIid({ n: 10, d: 1, p: 0.2, cardinality: 3 }, rng)).toThrow(
      /p is for binary attributes only/,
    );
    expect(() => generateIid({ n: 10, d: 1, cardinality: 3, distributions: [0.5, 0.5] }, rng)).toThrow(
      /must have 3 entries/,
    );
  });
});
