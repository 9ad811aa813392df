import { rmSync } from "node:fs";
import { join } from "node:path";
import { estimateCalmPlus } from "@calm-ldp/calm-core";
import type { WireReport } from "@calm-ldp/client";
import { seededRng } from "@calm-ldp/random";
import { afterAll, describe, expect, it } from "vitest";
import { openDuckDbStorage } from "../src/duckdb.js";
import { type RunningCollector, simulateUsers, startCollector } from "../src/index.js";
import { call, createRound, inProcessAnswers, mixedRecords, roundBody, TOKEN, tempDir } from "./support.js";

describe("end to end on loopback with DuckDB", () => {
  const dir = tempDir();
  let collector: RunningCollector | undefined;
  afterAll(async () => {
    await collector?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("100,000 simulated users report over HTTP; the collector's marginals equal the in-process CALM estimate exactly", async () => {
    const storage = await openDuckDbStorage(join(dir, "collector.duckdb"));
    collector = await startCollector({ storage, adminToken: TOKEN });
    const n = 100_000;
    const records = mixedRecords(n, 1);
    const { round, plan } = await createRound(collector.url, roundBody(records, 1, 2, n));
    // Both wire kinds travel: the plan mixes GRR and OUE views.
    expect(new Set(plan.views.map((v) => v.oracle))).toEqual(new Set(["grr", "oue"]));

    const acknowledged = new Map<string, WireReport>();
    const result = await simulateUsers({
      url: collector.url,
      round,
      plan,
      records,
      concurrency: 8,
      batchSize: 100,
      rng: seededRng(2),
      onAcknowledged: (reports) => {
        for (const report of reports) acknowledged.set(report.id, report);
      },
    });
    expect(result).toMatchObject({
      users: n,
      acknowledged: n,
      duplicates: 0,
      rejected: 0,
      unacknowledged: 0,
    });
    expect(acknowledged.size).toBe(n);

    // Reports counted = reports acknowledged, per view too.
    const status = await call(`${collector.url}/v1/rounds/${round}/status`, "GET");
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ round, accepted: n, duplicates: 0, rejected: {} });
    const { aggregator, answers } = inProcessAnswers(plan, acknowledged.values(), [
      [0, 1],
      [2, 5],
      [3, 6],
      [0, 2, 5],
      [1, 3, 4, 6],
      [0, 1, 2, 3, 4, 5, 6, 7],
    ]);
    expect(status.body.perView).toEqual(aggregator.reportsPerView());

    // The database's GROUP BY counts are the in-process support counts, cell for cell.
    const counts = await storage.supportCounts((await storage.findRound(round))!);
    aggregator.views.forEach((view, v) => {
      expect(Array.from(counts.support[v]!), `view ${v}`).toEqual(Array.from(view.counts()));
    });

    // And every answer is identical (bit for bit: both run estimateCalm on equal counts).
    const queries = ["q0,q1", "q2,q5", "3,6", "q0,q2,q5", "q1,q3,q4,q6", "q0,q1,q2,q3,q4,q5,q6,q7"];
    for (const [i, attrs] of queries.entries()) {
      const answer = await call(`${collector.url}/v1/rounds/${round}/marginals?attrs=${attrs}`, "GET");
      expect(answer.status).toBe(200);
      expect(answer.body.n).toBe(n);
      expect(answer.body.eps).toBe(1);
      expect(answer.body.cells, attrs).toEqual(answers[i]);
      const covered = plan.views.some((v) =>
        (answer.body.attributes as number[]).every((a) => v.attributes.includes(a)),
      );
      expect(answer.body.method).toBe(covered ? "projection" : "maxent");
      if (covered) expect(answer.body.expectedSse).toBeGreaterThan(0);
      else expect(answer.body.expectedSse).toBeNull();
    }

    // ?estimator=calm-plus: the same counts through estimateCalmPlus, identical to the in-process synopsis.
    const plus = estimateCalmPlus(plan, aggregator);
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
