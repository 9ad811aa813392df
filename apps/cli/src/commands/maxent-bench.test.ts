import { projectTable } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { randomPairViews } from "@calm-ldp/reconstruction";
import { describe, expect, it } from "vitest";
import { runCommandLine } from "../cli-kit.js";
import { maxentBenchCommand } from "./maxent-bench.js";

const run = (argv: string[]) => runCommandLine(maxentBenchCommand, argv);

describe("calm-ldp maxent-bench", () => {
  it("prints the three medians and the worst residual (timings are reported, never asserted)", () => {
    const out = run(["--repeats", "3", "--warmup", "0"]);
    for (const key of ["binary8FromPairsMs", "ternary6FromPairsMs", "binary10FromPairsMs"]) {
      expect(typeof out[key]).toBe("number");
      expect(out[key] as number).toBeGreaterThan(0);
    }
    expect(out.maxResidual as number).toBeLessThan(1e-8);
    const details = out.details as Record<string, { allConverged: boolean }>;
    expect(Object.values(details).every((d) => d.allConverged)).toBe(true);
    expect(JSON.parse(JSON.stringify(out))).toEqual(out);
  });

  it("builds consistent pairwise views of one joint distribution", () => {
    const { views } = randomPairViews(seededRng(3), 4, 3);
    expect(views).toHaveLength(6);
    // Views (0, 1) and (0, 2) agree on attribute 0.
    const a = projectTable(views[0]!, [0]).cells;
    const b = projectTable(views[1]!, [0]).cells;
    for (let c = 0; c < 3; c++) expect(Math.abs(a[c]! - b[c]!)).toBeLessThan(1e-15);
  });

  it("rejects bad options", () => {
    expect(() => run(["--repeats", "0"])).toThrow(/--repeats must be >= 1/);
    expect(() => run(["--tolerance", "abc"])).toThrow(/--tolerance must be a finite number/);
  });
});
