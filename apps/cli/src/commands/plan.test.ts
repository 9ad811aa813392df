import { describe, expect, it } from "vitest";
import { runCommandLine } from "../cli-kit.js";
import { planCommand } from "./plan.js";

const run = (argv: string[]) => runCommandLine(planCommand, argv);

describe("calm-ldp plan", () => {
  it("reproduces ../../../../docs/algorithms.md#choosing-the-view-size-and-the-number-of-views: n = 2^16, d = 8, k = 3, eps = 2 gives l = 4, m = 14", () => {
    const out = run(["--n", "65536", "--d", "8", "--k", "3", "--eps", "2"]);
    expect([out.l, out.m, out.theta]).toEqual([4, 14, 0.001]);
    expect(out.candidates).toHaveLength(2);
    expect((out.views as number[][]).every((v) => v.length === 4)).toBe(true);
  });

  it("eps <= 1.4 gives l = 2, m = 28; n = 2^18, d = 32, eps = 0.2 gives l = 2, m = 262", () => {
    for (const eps of ["0.2", "1", "1.4"]) {
      const out = run(["--n", "65536", "--d", "8", "--k", "3", "--eps", eps]);
      expect([out.l, out.m]).toEqual([2, 28]);
    }
    const out = run(["--n", "262144", "--d", "32", "--k", "3", "--eps", "0.2"]);
    expect([out.l, out.m]).toEqual([2, 262]);
    expect(out.views).toHaveLength(262);
  });

  it("takes cardinalities and rejects inconsistent options", () => {
    const out = run(["--n", "65536", "--d", "3", "--k", "2", "--eps", "1", "--cardinalities", "3,4,5"]);
    expect(out.views).toEqual([
      [0, 1],
      [0, 2],
      [1, 2],
    ]);
    expect(() =>
      run(["--n", "65536", "--d", "3", "--k", "2", "--eps", "1", "--cardinalities", "3,4"]),
    ).toThrow(/--cardinalities must list 3 values/);
    expect(() => run(["--n", "65536", "--d", "3", "--k", "4", "--eps", "1"])).toThrow(
      /--k must be <= --d = 3/,
    );
  });
});
