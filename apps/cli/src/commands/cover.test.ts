import { verify } from "@calm-ldp/covering-design";
import { describe, expect, it } from "vitest";
import { parseOptions, runCommandLine, UsageError } from "../cli-kit.js";
import { type CoverResult, coverCommand } from "./cover.js";

const run = (argv: string[]) => runCommandLine<CoverResult>(coverCommand, argv);

describe("calm-ldp cover", () => {
  it("prints v, k, t, blocks, lowerBound and verified: CALM's d = 8 example has 14 views of 4", () => {
    const out = run(["--v", "8", "--k", "4", "--t", "3"]);
    expect(Object.keys(out)).toEqual(
      expect.arrayContaining(["v", "k", "t", "blocks", "lowerBound", "verified"]),
    );
    expect([out.v, out.k, out.t, out.blocks.length, out.lowerBound, out.verified, out.optimal]).toEqual([
      8,
      4,
      3,
      14,
      14,
      true,
      true,
    ]);
    expect(verify(out.blocks, 8, 3)).toBe(true);
    expect(JSON.parse(JSON.stringify(out))).toEqual(out); // one plain JSON document
  });

  it("searches where no exact construction exists, deterministically", () => {
    const a = run(["--v", "11", "--k", "4", "--t", "2", "--iterations", "20000"]);
    const b = run(["--v", "11", "--k", "4", "--t", "2", "--iterations", "20000"]);
    expect(a.verified).toBe(true);
    expect(a.blocks).toEqual(b.blocks);
    expect(a.size).toBeGreaterThanOrEqual(a.lowerBound);
  });

  it("renders text for humans", () => {
    const text = coverCommand.text!(run(["--v", "7", "--k", "3", "--t", "2"]) as never);
    expect(text.split("\n")[0]).toMatch(
      /^C\(7,3,2\) <= 7 blocks \(Schönheim bound 7, optimal; .*verified: true\)$/,
    );
    expect(text.split("\n")).toHaveLength(8);
  });

  it("rejects missing and inconsistent options", () => {
    expect(() => parseOptions(coverCommand, ["--v", "8", "--k", "4"])).toThrow(/cover: --t is required/);
    expect(() => parseOptions(coverCommand, ["--v", "65", "--k", "4", "--t", "2"])).toThrow(
      /--v must be <= 64/,
    );
    expect(() => run(["--v", "8", "--k", "9", "--t", "2"])).toThrow(UsageError);
    expect(() => run(["--v", "8", "--k", "4", "--t", "5"])).toThrow(
      /cover: --t must be <= --k = 4 \(got 5\)/,
    );
  });
});
