import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseOptions, runCommandLine } from "../cli-kit.js";
import { parseQueries, runCommand } from "./run.js";

const context = { json: true, log: () => {} };
const run = async (argv: string[]) =>
  runCommandLine<Promise<Record<string, unknown>>>(runCommand, argv, context);

describe("calm-ldp run", () => {
  it("prints the contract's JSON fields and writes JSON, CSV and SVG", async () => {
    const out = mkdtempSync(join(tmpdir(), "calm-run-"));
    const doc = await run([
      "--data",
      "synthetic:iid?p=0.3",
      "--n",
      "20000",
      "--d",
      "6",
      "--k",
      "2",
      "--eps",
      "1,2",
      "--reps",
      "2",
      "--queries",
      "5",
      "--seed",
      "3",
      "--workers",
      "1",
      "--out",
      out,
    ]);
    expect(doc.config).toMatchObject({
      data: "synthetic:iid?p=0.3",
      n: 20000,
      d: 6,
      k: 2,
      eps: [1, 2],
      methods: ["calm"],
      queries: 5,
      reps: 2,
      seed: 3,
    });
    const results = doc.results as Record<string, unknown>[];
    expect(results).toHaveLength(2);
    for (const row of results) {
      for (const key of ["method", "eps", "sseMean", "sseStd", "tvdMean", "tvdStd", "seconds"])
        expect(row).toHaveProperty(key);
      expect(row.sseMean).toBeGreaterThan(0);
    }
    const json = JSON.parse(readFileSync(join(out, "run.json"), "utf8"));
    expect(json.runs).toHaveLength(4);
    expect(readFileSync(join(out, "run.csv"), "utf8").split("\n")[0]).toContain("sseMean");
    expect(readFileSync(join(out, "run-sse.svg"), "utf8")).toMatch(/^<svg/);
  });

  it("gives the same results in worker threads as in one thread", async () => {
    const argv = [
      "--data",
      "synthetic:iid?p=0.3",
      "--n",
      "5000",
      "--d",
      "5",
      "--k",
      "2",
      "--eps",
      "1",
      "--reps",
      "2",
      "--queries",
      "5",
      "--seed",
      "9",
    ];
    const one = await run([...argv, "--workers", "1"]);
    const two = await run([...argv, "--workers", "2"]);
    const strip = (doc: Record<string, unknown>) =>
      (doc.results as Record<string, unknown>[]).map(({ seconds: _s, ...rest }) => rest);
    expect(strip(two)).toEqual(strip(one));
  });

  it("rejects bad queries and unknown methods", () => {
    expect(parseQueries("all")).toBe("all");
    expect(() => parseQueries("0")).toThrow(/--queries must be an integer >= 1 or "all"/);
    expect(() => parseOptions(runCommand, ["--methods", "calm,nope"])).toThrow(
      /--methods items must be among/,
    );
  });
});
