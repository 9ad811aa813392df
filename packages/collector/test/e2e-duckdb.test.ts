import { estimateCalmPlus } from "@calm-ldp/calm-core";
import { describe, expect, it } from "vitest";
import { call, duckdbCollectors, expectStoredCounts, startMixedLoad } from "./support.js";

describe("end to end on loopback with DuckDB", () => {
  const collectors = duckdbCollectors();

  it("100,000 simulated users report over HTTP; the collector's marginals equal the in-process CALM estimate exactly", async () => {
    const { collector, storage } = await collectors.start("collector.duckdb");
    const n = 100_000;
    const { round, plan, load } = await startMixedLoad(collector.url, n, 1);
    // Both wire kinds travel: the plan mixes GRR and OUE views.
    expect(new Set(plan.views.map((v) => v.oracle))).toEqual(new Set(["grr", "oue"]));
    await load.finish({ duplicates: 0 });
    expect(load.acknowledged.size).toBe(n);

    // Reports counted = reports acknowledged, per view too; every answer is identical to the
    // in-process one (bit for bit: both run estimateCalm on equal counts).
    const queries = {
      "q0,q1": [0, 1],
      "q2,q5": [2, 5],
      "3,6": [3, 6],
      "q0,q2,q5": [0, 2, 5],
      "q1,q3,q4,q6": [1, 3, 4, 6],
      "q0,q1,q2,q3,q4,q5,q6,q7": [0, 1, 2, 3, 4, 5, 6, 7],
    };
    const { status, aggregator } = await load.expectCountedOnce(collector.url, queries);
    expect(status).toMatchObject({ round, accepted: n, duplicates: 0, rejected: {} });

    // The database's GROUP BY counts are the in-process support counts, cell for cell.
    await expectStoredCounts(storage, round, aggregator!);

    // Each answer's method and expected SSE.
    for (const attrs of Object.keys(queries)) {
      const answer = await call(`${collector.url}/v1/rounds/${round}/marginals?attrs=${attrs}`, "GET");
      expect(answer.status).toBe(200);
      expect(answer.body.eps).toBe(1);
      const covered = plan.views.some((v) =>
        (answer.body.attributes as number[]).every((a) => v.attributes.includes(a)),
      );
      expect(answer.body.method).toBe(covered ? "projection" : "maxent");
      if (covered) expect(answer.body.expectedSse).toBeGreaterThan(0);
      else expect(answer.body.expectedSse).toBeNull();
    }

    // ?estimator=calm-plus: the same counts through estimateCalmPlus, identical to the in-process synopsis.
    const plus = estimateCalmPlus(plan, aggregator!);
    for (const attrs of ["q0,q1", "q0,q2,q5", "q1,q3,q4,q6"]) {
      const answer = await call(
        `${collector.url}/v1/rounds/${round}/marginals?attrs=${attrs}&estimator=calm-plus`,
        "GET",
      );
      expect(answer.status).toBe(200);
      expect(answer.body.estimator).toBe("calm-plus");
      expect(answer.body.expectedSse).toBeNull();
      expect(answer.body.cells, attrs).toEqual(
        Array.from(plus.query(answer.body.attributes as number[]).cells),
      );
    }
  });
});
