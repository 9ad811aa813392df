import { contingencyTable, projectTable, sse, uniformSchema } from "@calm-ldp/marginal-algebra";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { CalmAggregator } from "./aggregator.js";
import { calmReport } from "./client.js";
import { InvalidParameterError, InvalidRecordError, MalformedReportError } from "./errors.js";
import { estimateCalm } from "./estimate.js";
import { planCalm } from "./plan.js";
import { createCalmProtocol } from "./protocol.js";
import { simulateCalm } from "./simulate.js";
import { markovStore } from "./test-support.js";

describe("CALM client and aggregator", () => {
  const plan = planCalm({ schema: uniformSchema(6), n: 10_000, eps: 1, k: 2 });

  it("reports a valid view and oracle report; rejects records outside the schema", () => {
    const rng = seededRng(1);
    const report = calmReport(plan, [0, 1, 1, 0, 1, 0], { rng });
    expect(report.view >= 0 && report.view < plan.m).toBe(true);
    const aggregator = new CalmAggregator(plan);
    aggregator.add(report);
    expect(aggregator.reports).toBe(1);
    expect(() => calmReport(plan, [0, 1, 1], { rng })).toThrow(InvalidRecordError);
    expect(() => calmReport(plan, [0, 1, 2, 0, 1, 0], { rng })).toThrow(
      /value of attribute 2 \(a2\) must be an integer in \[0, 2\) \(got 2\)/,
    );
    expect(() => calmReport(plan, [0, 1, 1, 0, 1, 0], { rng, view: plan.m })).toThrow(
      /view must be an integer/,
    );
  });

  it("counts nothing for reports of unknown views or with invalid payloads", () => {
    const aggregator = new CalmAggregator(plan);
    expect(() => aggregator.add({ view: plan.m, report: 0 })).toThrow(MalformedReportError);
    expect(() => aggregator.add({ view: -1, report: 0 })).toThrow(/unknown view -1/);
    expect(() => aggregator.add({ view: 0, report: 99 })).toThrow();
    expect(() => aggregator.add(null as never)).toThrow(MalformedReportError);
    expect(aggregator.reports).toBe(0);
  });

  it("merging aggregators adds their counts; another plan's aggregator is refused", () => {
    const rng = seededRng(2);
    const a = new CalmAggregator(plan);
    const b = new CalmAggregator(plan);
    for (let i = 0; i < 100; i++) a.add(calmReport(plan, [1, 1, 1, 1, 1, 1], { rng }));
    for (let i = 0; i < 50; i++) b.add(calmReport(plan, [0, 0, 0, 0, 0, 0], { rng }));
    const before = a.views.map((v) => Array.from(v.counts()));
    a.merge(b);
    expect(a.reports).toBe(150);
    a.views.forEach((v, i) => {
      const merged = v.counts();
      const other = b.views[i]!.counts();
      merged.forEach((c, x) => {
        expect(c).toBe(before[i]![x]! + other[x]!);
      });
    });
    const otherPlan = planCalm({ schema: uniformSchema(6), n: 10_000, eps: 2, k: 2 });
    expect(() => a.merge(new CalmAggregator(otherPlan))).toThrow(/different plan/);
  });

  it("estimateCalm refuses an aggregator of another plan with as many views (plan fingerprints)", () => {
    const parameters = { schema: uniformSchema(6), n: 10_000, k: 2, eps: 1 };
    const store = markovStore(seededRng(3), 200, [2, 2, 2, 2, 2, 2], 0.5);
    const mine = planCalm(parameters, { l: 3, m: 6 });
    const others = [
      planCalm(parameters, { l: 2, m: 6 }), // other views
      planCalm({ ...parameters, eps: 2 }, { l: 3, m: 6 }), // other eps
      planCalm(parameters, { l: 3, m: 6, oracle: "oue" }), // other oracles
    ];
    for (const other of others) {
      expect(other.views.length).toBe(mine.views.length);
      const aggregator = simulateCalm(other, store, seededRng(4));
      expect(() => estimateCalm(mine, aggregator)).toThrow(InvalidParameterError);
      expect(() => estimateCalm(mine, aggregator)).toThrow(
        /estimateCalm: the aggregator belongs to a different plan/,
      );
    }
    // The same plan rebuilt (another object, the same fingerprint) is accepted.
    const aggregator = simulateCalm(planCalm(parameters, { l: 3, m: 6 }), store, seededRng(4));
    expect(estimateCalm(mine, aggregator).views.length).toBe(mine.views.length);
  });
});

describe("CALM end to end", () => {
  it("per-user and count-level simulation give the same estimate distribution (z-test on view cells)", () => {
    // 40 repetitions per path of one small population; compare the mean of every raw view
    // cell between paths with a two-sample z statistic. |z| < 4.5 (a correct pair fails one
    // of the ~40 cells with probability ~3e-4; a wrong law shifts z by tens at this n).
    const data = markovStore(seededRng(10), 20_000, [2, 2, 2, 2, 2]);
    const plan = planCalm({ schema: data.schema, n: data.size, eps: 1, k: 2 });
    const reps = 40;
    const collect = (path: "counts" | "per-user", seed: number) => {
      const sums: number[][] = plan.views.map((v) => new Array(v.cells).fill(0));
      const squares: number[][] = plan.views.map((v) => new Array(v.cells).fill(0));
      for (let r = 0; r < reps; r++) {
        const synopsis = estimateCalm(plan, simulateCalm(plan, data, seededRng(seed, r), { path }), {
          postProcess: false,
        });
        synopsis.rawViews.forEach((view, v) => {
          view.cells.forEach((x, c) => {
            sums[v]![c]! += x;
            squares[v]![c]! += x * x;
          });
        });
      }
      return { sums, squares };
    };
    const a = collect("counts", 100);
    const b = collect("per-user", 200);
    let worst = 0;
    plan.views.forEach((view, v) => {
      for (let c = 0; c < view.cells; c++) {
        const meanA = a.sums[v]![c]! / reps;
        const meanB = b.sums[v]![c]! / reps;
        const varA = a.squares[v]![c]! / reps - meanA ** 2;
        const varB = b.squares[v]![c]! / reps - meanB ** 2;
        worst = Math.max(worst, Math.abs(meanA - meanB) / Math.sqrt((varA + varB) / reps));
      }
    });
    expect(worst).toBeLessThan(4.5);
  });

  it("answers covered queries by projection and uncovered ones by maximum entropy, each a distribution", () => {
    const data = markovStore(seededRng(11), 2 ** 16, [2, 2, 2, 2, 2, 2, 2, 2]);
    const protocol = createCalmProtocol();
    const plan = protocol.plan({ schema: data.schema, n: data.size, eps: 2, k: 3 });
    const synopsis = protocol.estimate(plan, protocol.simulate!(plan, data, seededRng(12)));
    const covered = synopsis.answer([0, 1, 2]);
    expect(covered.method).toBe("projection");
    const five = synopsis.answer([0, 2, 4, 6, 7]);
    expect(five.method).toBe("maxent");
    for (const table of [covered.table, five.table]) {
      expect(table.cells.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 9);
      expect(Math.min(...table.cells)).toBeGreaterThanOrEqual(0);
    }
    // At eps = 2 and n = 2^16 the 3-way answers are far better than the uniform table.
    const truth = contingencyTable(data, [0, 1, 2]);
    const uniformSse = sse(new Float64Array(8).fill(1 / 8), truth.cells);
    expect(sse(covered.table.cells, truth.cells)).toBeLessThan(uniformSse / 10);
    // Post-processed views agree on shared attributes.
    const [v0, v1] = synopsis.views.filter((v) => v.attributes.includes(0)).slice(0, 2);
    expect(
      Math.max(...projectTable(v0!, [0]).cells.map((x, i) => Math.abs(x - projectTable(v1!, [0]).cells[i]!))),
    ).toBeLessThan(1e-9);
  });

  it("refuses a record store whose schema does not match the plan", () => {
    const data = markovStore(seededRng(13), 1000, [2, 2, 2]);
    const plan = planCalm({ schema: uniformSchema(4), n: 1000, eps: 1, k: 2 });
    expect(() => simulateCalm(plan, data, seededRng(1))).toThrow(InvalidRecordError);
  });
});
