import { parseDataSpec } from "@calm-ldp/datasets";
import { describe, expect, it } from "vitest";
import type { PipelineRequest } from "../src/page/api.js";
import { cliCommand, parseEpsInput, parseInspectInput, syntheticSpec } from "../src/page/form-values.js";
import { marginalHeatmapSpec, sharedDomain, tableLayout } from "../src/page/heatmaps.js";
import { specFileName, uploadSpec } from "../src/page/parse-upload.js";
import { commandWords, runCliJson } from "./cli-process.js";

describe("web demo form values", () => {
  it("reads eps as a list or a from:to:count range", () => {
    expect(parseEpsInput("0.5, 1,2")).toEqual([0.5, 1, 2]);
    expect(parseEpsInput("0.5:2:4")).toEqual([0.5, 1, 1.5, 2]);
    expect(parseEpsInput("0.1:0.3:3")).toEqual([0.1, 0.2, 0.3]);
    expect(() => parseEpsInput("1,,2")).toThrow(/comma-separated list/);
    expect(() => parseEpsInput("0,1")).toThrow(/every eps must be a finite number > 0 \(got "0,1"\)/);
    expect(() => parseEpsInput("2:1:3")).toThrow(/from < to/);
    expect(() => parseEpsInput("1:2:50")).toThrow(/count <= 20/);
    expect(() => parseEpsInput("1,1")).toThrow(/must not repeat/);
  });

  it("reads the inspected marginal, defaulting to the first k attributes", () => {
    expect(parseInspectInput("", 5, 2)).toEqual([0, 1]);
    expect(parseInspectInput(" 3, 1 ", 5, 2)).toEqual([1, 3]);
    expect(() => parseInspectInput("1", 5, 2)).toThrow(
      /k = 2 distinct attribute indices between 0 and 4 \(got "1"\)/,
    );
    expect(() => parseInspectInput("1,5", 5, 2)).toThrow(/between 0 and 4/);
    expect(() => parseInspectInput("2,2", 5, 2)).toThrow(/distinct/);
  });

  it("spells the synthetic generators' knobs as data specs the datasets package parses", () => {
    const knobs = {
      kind: "synthetic-bn",
      strength: 0.6,
      parents: 2,
      cardinality: 3,
      seed: 7,
      base: "uniform",
    } as const;
    expect(parseDataSpec(syntheticSpec(knobs))).toMatchObject(knobs);
    expect(parseDataSpec(syntheticSpec({ kind: "synthetic-iid", p: 0.3, cardinality: 2 }))).toMatchObject({
      p: [0.3],
    });
    expect(parseDataSpec(syntheticSpec({ kind: "synthetic-iid", p: 0.3, cardinality: 4 }))).toMatchObject({
      cardinality: 4,
    });
    expect(uploadSpec({ format: "adult", name: "adult.data", text: "", partition: "binary" })).toBe(
      "adult:adult.data?partition=binary",
    );
    expect(specFileName("my file?.csv")).toBe("my_file_.csv");
    expect(parseDataSpec(uploadSpec({ format: "csv", name: "a&b=c.csv", text: "" }))).toMatchObject({
      kind: "csv",
    });
  });

  it("shows a CLI command whose options are exactly the page's configuration", async () => {
    const request: PipelineRequest = {
      config: {
        data: "synthetic:bn?strength=0.6&parents=2&cardinality=2&base=random&seed=7",
        n: 20000,
        d: 6,
        k: 2,
        c: 4,
        eps: [0.5, 1, 2],
        methods: ["calm"],
        queries: 20,
        reps: 3,
        seed: 1,
        path: "per-user",
      },
      random: "seeded",
      inspect: [0, 1],
    };
    const text = cliCommand(request);
    const words = commandWords(text);
    expect(words.slice(0, 3)).toEqual(["pnpm", "calm-ldp", "run"]);
    // The CLI itself (apps/cli, in its own process) parses the command; its JSON echoes the configuration it ran.
    const { config } = await runCliJson<{ config: Record<string, unknown> }>(words.slice(2));
    expect(config).toEqual(request.config);
  });
});

describe("web demo heatmaps", () => {
  const names = ["age", "sex", "smoker"];
  const labels = [
    ["young", "old"],
    ["F", "M"],
    ["no", "yes", "ex"],
  ];

  it("lays a k-way table out as first attribute x joint categories of the rest, in mixed-radix order", () => {
    const layout = tableLayout({ attributes: [0, 2], cardinalities: [2, 3] }, names, labels);
    expect(layout.xTitle).toBe("age");
    expect(layout.yTitle).toBe("smoker");
    expect([0, 1, 2, 3, 4, 5].map((i) => layout.position(i))).toEqual([
      { x: "young", y: "no" },
      { x: "young", y: "yes" },
      { x: "young", y: "ex" },
      { x: "old", y: "no" },
      { x: "old", y: "yes" },
      { x: "old", y: "ex" },
    ]);
    const three = tableLayout({ attributes: [0, 1, 2], cardinalities: [2, 2, 3] }, names, labels);
    expect(three.yTitle).toBe("sex · smoker");
    expect(three.yOrder).toEqual(["F · no", "F · yes", "F · ex", "M · no", "M · yes", "M · ex"]);
    expect(three.position(11)).toEqual({ x: "old", y: "M · ex" });
    expect(tableLayout({ attributes: [1], cardinalities: [2] }, names, labels).position(1)).toEqual({
      x: "M",
      y: "all",
    });
  });

  it("builds on the harness's heatmapSpec: shared colour domain, category order, 3-decimal labels", () => {
    const table = { truth: [0.1, 0.2, 0.3, 0.4], estimate: [0.15, 0.1, 0.35, 0.45] };
    const domain = sharedDomain(table);
    expect(domain).toEqual([0, 0.45]);
    expect(sharedDomain({ truth: [0.5], estimate: [0.5] })).toEqual([0, 0.5]);
    expect(sharedDomain({ truth: [-0.1, 0.2], estimate: [0.3, 0.4] })).toEqual([-0.1, 0.4]);
    const layout = tableLayout({ attributes: [0, 1], cardinalities: [2, 2] }, names, labels);
    const spec = marginalHeatmapSpec(table.estimate, layout, "estimate", domain) as {
      data: { values: unknown[] };
      encoding: { x: { sort: unknown } };
      layer: { encoding: { color: { scale: unknown }; text: { format: string } } }[];
    };
    expect(spec.data.values).toEqual([
      { x: "young", y: "F", value: 0.15 },
      { x: "young", y: "M", value: 0.1 },
      { x: "old", y: "F", value: 0.35 },
      { x: "old", y: "M", value: 0.45 },
    ]);
    expect(spec.encoding.x.sort).toEqual(["young", "old"]);
    expect(spec.layer[0]!.encoding.color.scale).toMatchObject({ type: "linear", domain: [0, 0.45] });
    expect(spec.layer[1]!.encoding.text.format).toBe(".3f");
  });
});
