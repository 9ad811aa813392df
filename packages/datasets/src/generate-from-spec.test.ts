import { describe, expect, it } from "vitest";
import { DataSpecError } from "./errors.js";
import { generateFromSpec } from "./generate-from-spec.js";
import { columnSums } from "./test-support.js";

describe("generateFromSpec", () => {
  it("generates n records of d attributes with the spec's parameters and records seeds and source", () => {
    const { store, info } = generateFromSpec("synthetic:iid?p=0.3", { n: 50_000, d: 3, seed: 4 });
    expect(store.size).toBe(50_000);
    expect(store.columns).toHaveLength(3);
    // Binomial(5e4, 0.3): sd ~ 102; z <= 5.
    for (const sum of columnSums(store.columns))
      expect(Math.abs(sum - 15_000) / Math.sqrt(50_000 * 0.21)).toBeLessThan(5);
    expect(info.source).toBe("synthetic:iid?p=0.3");
    expect(info.generator).toMatchObject({ kind: "iid", seed: 4, recordStream: 1 });
  });

  it("uses the spec seed for the network and the run seed for the records", () => {
    const spec = "synthetic:bn?strength=0.7&parents=1&seed=11";
    const a = generateFromSpec(spec, { n: 3000, d: 6, seed: 1 });
    const b = generateFromSpec(spec, { n: 3000, d: 6, seed: 2 });
    expect((a as { network?: unknown }).network).toEqual((b as { network?: unknown }).network);
    expect(a.store.columns).not.toEqual(b.store.columns);
    expect(a.info.generator).toMatchObject({ seed: 1, networkSeed: 11 });
    expect(generateFromSpec(spec, { n: 3000, d: 6, seed: 1 }).store.columns).toEqual(a.store.columns);
    const c = generateFromSpec("synthetic:bn?parents=1", { n: 10, d: 6, seed: 1 });
    const d = generateFromSpec("synthetic:bn?parents=1", { n: 10, d: 6, seed: 2 });
    expect((c as { network?: unknown }).network).not.toEqual((d as { network?: unknown }).network);
  });

  it("takes the cardinality from the spec, else from c; caps at c", () => {
    expect(
      generateFromSpec("synthetic:bn", { n: 100, d: 2, c: 4 }).schema.attributes[0]!.labels,
    ).toHaveLength(4);
    expect(generateFromSpec("synthetic:bn", { n: 100, d: 2 }).schema.attributes[0]!.labels).toHaveLength(2);
    const capped = generateFromSpec("synthetic:iid?cardinality=5", { n: 1000, d: 2, c: 3 });
    expect(capped.schema.attributes[0]!.labels).toHaveLength(3);
    expect(capped.info.preprocessing.at(-1)).toContain("categories capped at c = 3");
  });

  it("needs n and d, and refuses file specs (they need the node entry)", () => {
    expect(() => generateFromSpec("synthetic:iid", { d: 2 })).toThrow(
      /generateFromSpec: n \(records to generate\) is required/,
    );
    expect(() => generateFromSpec("synthetic:iid", { n: 2 })).toThrow(
      /d \(attributes to generate\) is required/,
    );
    expect(() => generateFromSpec("synthetic:iid?p=0.1,0.2", { n: 2, d: 3 })).toThrow(
      /p must list one probability or d = 3/,
    );
    expect(() => generateFromSpec("adult:/x", { n: 2, d: 2 })).toThrow(DataSpecError);
    expect(() => generateFromSpec("adult:/x", { n: 2, d: 2 })).toThrow(/@calm-ldp\/datasets\/node/);
  });
});
