import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import type { LoadedDataset } from "./api.js";
import { sampleUsers } from "./sample-users.js";

function population(rows: number): LoadedDataset {
  const schema = { attributes: [{ name: "id", labels: Array.from({ length: rows }, (_, i) => String(i)) }] };
  const column = Uint16Array.from({ length: rows }, (_, i) => i);
  return {
    schema,
    store: { schema, size: rows, columns: [column] },
    info: {
      source: "test",
      files: [],
      rowsRead: rows,
      rowsDropped: 0,
      drops: [],
      rows,
      preprocessing: [],
      attributes: [{ name: "id", kind: "nominal", sourceCategories: rows, cardinality: rows, rule: "none" }],
    },
  };
}

describe("sampleUsers", () => {
  it("returns every row once when n = rows, and says so", () => {
    const data = population(7);
    const sample = sampleUsers(data, 7, seededRng(1));
    expect(sample.store).toBe(data.store);
    expect(sample.info.sampling).toEqual({ population: 7, n: 7, method: "all", withReplacement: false });
  });

  it("draws a uniform n-subset without replacement when n < rows (inclusion frequencies, z <= 5)", () => {
    const rng = seededRng(2);
    const data = population(10);
    const reps = 4000;
    const included = new Array(10).fill(0);
    for (let rep = 0; rep < reps; rep++) {
      const sample = sampleUsers(data, 5, rng);
      const values = Array.from(sample.store.columns[0]!);
      expect(new Set(values).size).toBe(5);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      for (const v of values) included[v]++;
      if (rep === 0)
        expect(sample.info.sampling).toMatchObject({ method: "without-replacement", withReplacement: false });
    }
    // Each row is included with probability 1/2: Binomial(4000, 1/2), sd = sqrt(1000) ~ 31.6. z <= 5 over 10
    // rows keeps the false-alarm rate below 1e-5 for this fixed seed.
    for (const count of included) expect(Math.abs(count - reps / 2) / Math.sqrt(reps / 4)).toBeLessThan(5);
  });

  it("draws n > rows users with replacement, uniformly, and states it in info (z <= 5)", () => {
    const data = population(10);
    const n = 100_000;
    const sample = sampleUsers(data, n, seededRng(3));
    expect(sample.store.size).toBe(n);
    expect(sample.store.columns[0]).toBeInstanceOf(Uint16Array);
    expect(sample.info.sampling).toEqual({
      population: 10,
      n,
      method: "with-replacement",
      withReplacement: true,
    });
    expect(sample.info.preprocessing.at(-1)).toBe("sampled n = 100000 users WITH replacement from 10 rows");
    const counts = new Array(10).fill(0);
    for (const v of sample.store.columns[0]!) counts[v]++;
    // Binomial(1e5, 0.1): sd = sqrt(9000) ~ 94.9.
    for (const count of counts) expect(Math.abs(count - n / 10) / Math.sqrt(n * 0.09)).toBeLessThan(5);
  });

  it("honours replacement: always / never, and rejects bad n", () => {
    const data = population(10);
    expect(sampleUsers(data, 5, seededRng(4), { replacement: "always" }).info.sampling?.withReplacement).toBe(
      true,
    );
    expect(() => sampleUsers(data, 11, seededRng(4), { replacement: "never" })).toThrow(
      "sampleUsers: n must be <= 10 (the rows) without replacement (got 11)",
    );
    expect(() => sampleUsers(data, 0, seededRng(4))).toThrow(/n must be an integer >= 1 \(got 0\)/);
  });

  it("is reproducible from the seed", () => {
    const data = population(100);
    const a = sampleUsers(data, 500, seededRng(9)).store.columns[0];
    const b = sampleUsers(data, 500, seededRng(9)).store.columns[0];
    const c = sampleUsers(data, 500, seededRng(10)).store.columns[0];
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
  });
});
