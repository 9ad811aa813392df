import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { postReports, storageOutage } from "./outage.js";
import { createRoundFor, duckdbCollectors, mixedRecords, reportsOf, TOKEN } from "./support.js";

describe("structured logs (JSON lines at logLevel)", () => {
  const collectors = duckdbCollectors();

  it("one line per refused batch, per storage state change and per round opened or closed; requests only at debug", async () => {
    const lines: Record<string, unknown>[] = [];
    const outage = storageOutage("disk gone", "storeReports");
    const { collector } = await collectors.start(
      "logs.duckdb",
      {
        logLevel: "info",
        logStream: { write: (line: string) => lines.push(JSON.parse(line)) },
        log: () => undefined,
      },
      outage.wrap,
    );
    const records = mixedRecords(1000, 5);
    const { round, plan } = await createRoundFor(collector.url, records, 1000);
    const post = (body: unknown) => postReports(collector.url, round, body);
    const reports = reportsOf(plan, records, 0, 6, seededRng(6));
    expect((await post({ round, reports })).status).toBe(200);
    expect(
      (await post({ round, reports: reports.map((r, i) => (i === 3 ? { ...r, view: 9999 } : r)) })).status,
    ).toBe(400);
    outage.down = true;
    expect((await post({ round, reports })).status).toBe(503);
    outage.down = false;
    expect((await post({ round, reports })).status).toBe(200);
    await fetch(`${collector.url}/v1/rounds/${round}/close`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: "{}",
    });
    const events = lines.filter((line) => line.event !== undefined);
    expect(events.map((line) => [line.event, line.level])).toEqual([
      ["round-opened", 30],
      ["batch-refused", 30],
      ["storage-lost", 50],
      ["batch-refused", 30],
      ["storage-back", 30],
      ["round-closed", 30],
    ]);
    expect(events[1]).toMatchObject({ reason: "unknown-view", statusCode: 400, reports: 6 });
    expect(events[3]).toMatchObject({ reason: "storage-unavailable", statusCode: 503, reports: 6 });
    expect(events[0]).toMatchObject({ round });
    // No per-request lines at info.
    expect(lines.some((line) => line.msg === "incoming request" || line.msg === "request completed")).toBe(
      false,
    );
  });

  it("refuses an unknown level by name", async () => {
    await expect(collectors.start("bad-level.duckdb", { logLevel: "loud" })).rejects.toThrow(
      /logLevel must be one of trace, debug, info, warn, error, fatal, silent \(got "loud"\)/,
    );
  });
});
