import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { expectUnavailable, postReports, storageOutage } from "./outage.js";
import { call, createRoundFor, duckdbCollectors, mixedRecords, reportsOf } from "./support.js";

describe("storage unavailable: 503 storage-unavailable with Retry-After, then resume", () => {
  const collectors = duckdbCollectors();

  it("refuses (never acknowledges) while the storage fails, says so in /readyz (while /healthz, liveness, stays 200) and the log, and resumes", async () => {
    const lines: string[] = [];
    // Every call fails while `outage.down`, as a database that went away would.
    const outage = storageOutage("connect ECONNREFUSED 127.0.0.1:5432");
    const { collector } = await collectors.start("flaky.duckdb", { log: (l) => lines.push(l) }, outage.wrap);
    const records = mixedRecords(20, 3);
    const { round, plan } = await createRoundFor(collector.url, records, 10_000);
    const rng = seededRng(4);
    const batch = (from: number) => reportsOf(plan, records, from, 10, rng);
    const post = (reports: unknown[]) => postReports(collector.url, round, { round, reports });
    const first = batch(0);
    expect((await post(first)).status).toBe(200);
    expect(lines).toEqual([]);

    outage.down = true;
    const second = batch(10);
    for (let i = 0; i < 3; i++) {
      await expectUnavailable(await post(second), { statusCode: 503 });
    }
    // Liveness stays 200 (the process answers); readiness says the database is away.
    expect(await call(`${collector.url}/healthz`, "GET")).toMatchObject({
      status: 200,
      body: { status: "ok", storageAvailable: false },
    });
    await expectUnavailable(await fetch(`${collector.url}/readyz`), {
      status: "unavailable",
      storage: "unavailable",
      backend: "duckdb",
      refused: { "storage-unavailable": 3 },
    });
    // One line when it went away (not one per request), naming the database's error.
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/storage \(duckdb\) unavailable: connect ECONNREFUSED.*503 storage-unavailable/);

    outage.down = false;
    const resumed = await post(second);
    expect(resumed.status).toBe(200);
    expect(await resumed.json()).toMatchObject({ acknowledged: 10, stored: 10, duplicates: 0 });
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/storage \(duckdb\) available again after .* s; 3 requests were answered 503/);
    expect(await call(`${collector.url}/readyz`, "GET")).toMatchObject({
      status: 200,
      body: { status: "ok", storage: "duckdb", refused: { "storage-unavailable": 3 } },
    });
    // Nothing of the refused attempts was counted: 20 reports, no duplicates.
    const status = await call(`${collector.url}/v1/rounds/${round}/status`, "GET");
    expect(status.body).toMatchObject({ accepted: 20, duplicates: 0 });
  });
});
