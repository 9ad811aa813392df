import { uniformSchema } from "@calm-ldp/marginal-algebra";
import { describe, expect, it } from "vitest";
import { CannotRunError, InvalidParameterError } from "./errors.js";
import { adaptiveOracle, planCalm } from "./plan.js";
import { selectViews } from "./view-selection.js";

const params = (d: number, n: number, eps: number, k: number) => ({ schema: uniformSchema(d), n, eps, k });

function combinations(d: number, k: number): number[][] {
  const out: number[][] = [];
  const rec = (start: number, acc: number[]) => {
    if (acc.length === k) return void out.push([...acc]);
    for (let i = start; i < d; i++) rec(i + 1, [...acc, i]);
  };
  rec(0, []);
  return out;
}

describe("planCalm", () => {
  it("n = 2^16, d = 8, k = 3, eps = 2: 14 four-way views covering every 3-subset, all through GRR or OUE", () => {
    const plan = planCalm(params(8, 2 ** 16, 2, 3));
    expect([plan.l, plan.m, plan.covering]).toEqual([4, 14, true]);
    expect(plan.views).toHaveLength(14);
    for (const triple of combinations(8, 3)) {
      expect(plan.views.some((v) => triple.every((a) => v.attributes.includes(a)))).toBe(true);
    }
    // 16 cells: 16 - 2 < 3 e^2 = 22.2, so GRR.
    expect(plan.views.every((v) => v.cells === 16 && v.oracle === "grr")).toBe(true);
  });

  it("is deterministic and plain JSON", () => {
    const a = planCalm(params(16, 2 ** 18, 0.6, 3));
    const b = planCalm(params(16, 2 ** 18, 0.6, 3));
    expect(a).toEqual(b);
    expect(JSON.parse(JSON.stringify(a))).toEqual(a);
    expect([a.l, a.m]).toEqual([2, 120]);
  });

  it("balanced views use every attribute equally often (within one)", () => {
    const plan = planCalm(params(16, 2 ** 16, 0.2, 3)); // l = 2, m = 65 of the 120 pairs
    expect([plan.l, plan.m]).toEqual([2, 65]);
    const uses = new Array(16).fill(0);
    for (const view of plan.views) for (const a of view.attributes) uses[a]++;
    expect(Math.max(...uses) - Math.min(...uses)).toBeLessThanOrEqual(1);
    const distinct = new Set(plan.views.map((v) => v.attributes.join(",")));
    expect(distinct.size).toBe(65);
  });

  it("random selection gives m distinct l-subsets, reproducibly", () => {
    const views = selectViews(20, 3, 50, { selection: "random", seed: 3 });
    expect(views).toHaveLength(50);
    expect(new Set(views.map((v) => v.join(","))).size).toBe(50);
    expect(selectViews(20, 3, 50, { selection: "random", seed: 3 })).toEqual(views);
    expect(views.every((v) => v.length === 3 && v[0]! < v[1]! && v[1]! < v[2]!)).toBe(true);
  });

  it("adaptive oracle: GRR when D - 2 < 3 e^eps, else OUE", () => {
    expect(adaptiveOracle(4, 1)).toBe("grr");
    expect(adaptiveOracle(16, 1)).toBe("oue"); // 14 >= 8.15
    expect(adaptiveOracle(10, 1)).toBe("grr"); // 8 < 8.15
    const plan = planCalm({ schema: uniformSchema(6, 3), n: 2 ** 16, eps: 0.5, k: 2 });
    expect(plan.views.every((v) => v.oracle === adaptiveOracle(v.cells, 0.5))).toBe(true);
  });

  it("honours overrides of l, m and the oracle", () => {
    const plan = planCalm(params(8, 2 ** 16, 1, 3), {
      l: 3,
      m: 20,
      oracle: "oue",
      selection: "random",
      seed: 1,
    });
    expect([plan.l, plan.m]).toEqual([3, 20]);
    expect(plan.views.every((v) => v.oracle === "oue" && v.attributes.length === 3)).toBe(true);
  });

  it("refuses bad input with typed errors naming the problem", () => {
    expect(() => planCalm(params(8, 2 ** 16, 0, 3))).toThrow(InvalidParameterError);
    expect(() => planCalm(params(8, 2 ** 16, -1, 3))).toThrow(/eps must be a finite number > 0 \(got -1\)/);
    expect(() => planCalm(params(8, 2 ** 16, 1, 9))).toThrow(
      /k must be an integer in \[1, d = 8\] \(got 9\)/,
    );
    expect(() => planCalm(params(8, 2 ** 16, 1, 3), { theta: 0 })).toThrow(
      /theta must be a finite number > 0/,
    );
    expect(() => planCalm(params(8, 500, 1, 3))).toThrow(CannotRunError);
    expect(() => planCalm(params(8, 500, 1, 3))).toThrow(/raise n to at least 1000/);
    expect(() => planCalm(params(8, 20, 1, 3), { m: 28 })).toThrow(
      /28 views need at least 28 users \(n = 20\)/,
    );
  });
});

describe("planForK", () => {
  it("plans for k' while the protocol answers k-way queries", () => {
    const forSix = planCalm(params(16, 2 ** 18, 1.6, 3), { planForK: 6 });
    const forThree = planCalm(params(16, 2 ** 18, 1.6, 3));
    expect(forSix.k).toBe(6);
    expect(forThree.k).toBe(3);
    expect(planCalm(params(16, 2 ** 18, 1.6, 6))).toEqual(forSix);
    expect(() => planCalm(params(8, 2 ** 16, 1, 3), { planForK: 0 })).toThrow(
      /planForK must be an integer >= 1/,
    );
  });
});
