import { seededRng } from "@calm-ldp/random";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ROUND_GAUGES_TTL_MS } from "../src/metrics.js";
import { delta, deltasBy, parseMetrics, sample } from "./metrics-text.js";
import { postReports, storageOutage } from "./outage.js";
import { createRoundFor, duckdbCollectors, fixedId, mixedRecords, reportsOf, TOKEN } from "./support.js";

const REPORTS = "calm_collector_reports_total";
const REFUSED_REPORTS = "calm_collector_reports_refused_total";
const REFUSED_BATCHES = "calm_collector_report_batches_refused_total";

/**
 * A collector under a load of known composition: every refusal reason a report
 * batch can meet, accepted batches, duplicates. Each request comes from its own
 * forwarded address (trusted proxy), except the rate-limited sender's.
 */
describe("metrics: a scrape during a load changes by exactly what the load did", () => {
  const collectors = duckdbCollectors();
  afterAll(() => {
    vi.useRealTimers();
  });
  let address = 0;
  const from = (fixed?: string) => ({
    "x-forwarded-for": fixed ?? `10.0.${(++address >> 8) & 255}.${address & 255}`,
  });

  it("counts stored and duplicate reports, and refused reports and batches by reason, to the report; the round's status agrees", async () => {
    const outage = storageOutage("connect ECONNREFUSED", "storeReports");
    const { collector } = await collectors.start(
      "metrics.duckdb",
      {
        maxBatch: 40,
        bodyLimit: 64 * 1024,
        rateLimit: { perSecond: 0.001, burst: 3 },
        trustProxy: "127.0.0.1",
      },
      outage.wrap,
    );
    const url = collector.url;
    const scrape = async () => {
      const response = await fetch(`${url}/metrics`, { headers: from() });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
      return parseMetrics(await response.text());
    };
    const admin = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
    const records = mixedRecords(1000, 21);
    const rng = seededRng(22);
    const { round, plan } = await createRoundFor(url, records, 1000);
    const { round: closed } = await createRoundFor(url, records, 1000);
    await fetch(`${url}/v1/rounds/${closed}/close`, {
      method: "POST",
      headers: { ...admin, ...from() },
      body: "{}",
    });
    const post = (body: string, options: { to?: string; type?: string; sender?: string } = {}) =>
      postReports(url, options.to ?? round, body, {
        "content-type": options.type ?? "application/json",
        ...from(options.sender),
      });
    const batch = (reports: unknown[], name = round) => JSON.stringify({ round: name, reports });
    const statuses = async (responses: Promise<Response>[]) =>
      (await Promise.all(responses)).map((r) => r.status);

    const before = await scrape();
    // Accepted: 10 batches of 20 at once (group commits), scraped while they are in flight.
    const sent = Array.from({ length: 10 }, (_, b) => reportsOf(plan, records, 20 * b, 20, rng));
    const inFlight = statuses(sent.map((reports) => post(batch(reports))));
    await scrape();
    expect(await inFlight).toEqual(new Array(10).fill(200));
    // Duplicates: batch 0 again (20), then 10 new with 10 of batch 1.
    const fresh = reportsOf(plan, records, 200, 10, rng);
    expect(await statuses([post(batch(sent[0]!))])).toEqual([200]);
    expect(await statuses([post(batch([...fresh, ...sent[1]!.slice(0, 10)]))])).toEqual([200]);
    // Refused, by reason (reports counted per batch: its array's length, 1 when its body was not read).
    const some = (count: number) => reportsOf(plan, records, 300, count, rng);
    const refusals: [string, number, Promise<Response>[]][] = [
      ["schema", 15, [1, 2, 3].map(() => post(batch(some(5).map((r, i) => (i === 2 ? { ...r, x: 1 } : r)))))],
      ["malformed-json", 2, [post("{not json"), post('{"round":')]],
      ["batch-too-large", 41, [post(batch(some(41)))]],
      ["body-too-large", 1, [post(JSON.stringify({ round, reports: some(1), pad: "x".repeat(70_000) }))]],
      ["unsupported-media-type", 1, [post(batch(some(2)), { type: "text/plain" })]],
      [
        "unknown-view",
        8,
        [1, 2].map(() => post(batch(some(4).map((r, i) => (i === 1 ? { ...r, view: 9999 } : r))))),
      ],
      ["round-mismatch", 3, [post(batch(some(3), fixedId(5)))]],
      ["round-not-found", 6, [post(batch(some(6), fixedId(6)), { to: fixedId(6) })]],
      ["round-closed", 7, [post(batch(some(7), closed), { to: closed })]],
    ];
    for (const [reason, , responses] of refusals)
      for (const response of await Promise.all(responses))
        expect([reason, (await response.json()).reason]).toEqual([reason, reason]);
    // Rate limited: one sender, burst 3: three batches of 2 stored, two refused before their body is read.
    const limited = reportsOf(plan, records, 400, 10, rng);
    const limitedStatuses: number[] = [];
    for (let i = 0; i < 5; i++)
      limitedStatuses.push(
        (await post(batch(limited.slice(2 * i, 2 * i + 2)), { sender: "10.9.9.9" })).status,
      );
    expect(limitedStatuses).toEqual([200, 200, 200, 429, 429]);
    // Storage away: two batches of 4 answered 503.
    outage.down = true;
    expect(await statuses([post(batch(some(4))), post(batch(some(4)))])).toEqual([503, 503]);
    outage.down = false;
    expect((await fetch(`${url}/readyz`, { headers: from() })).status).toBe(200); // a storage call succeeds: back
    const after = await scrape();

    expect(deltasBy(before, after, REPORTS, "outcome")).toEqual({ stored: 200 + 10 + 6, duplicate: 20 + 10 });
    const expectedReports = Object.fromEntries(refusals.map(([reason, reports]) => [reason, reports]));
    expect(deltasBy(before, after, REFUSED_REPORTS, "reason")).toEqual({
      ...expectedReports,
      "rate-limited": 2,
      "storage-unavailable": 8,
    });
    expect(deltasBy(before, after, REFUSED_BATCHES, "reason")).toEqual({
      ...Object.fromEntries(refusals.map(([reason, , responses]) => [reason, responses.length])),
      "rate-limited": 2,
      "storage-unavailable": 2,
    });
    const reportsRoute = { route: "/v1/rounds/:id/reports", method: "POST" };
    const ok = sample("calm_collector_http_requests_total", { ...reportsRoute, status: "200" });
    expect(delta(before, after, ok)).toBe(10 + 2 + 3);
    // Every batch posted above has its latency observed: 15 accepted, 13 refused by reason, 2 + 2.
    const latencies = sample("calm_collector_http_request_duration_seconds_count", reportsRoute);
    expect(delta(before, after, latencies)).toBe(15 + 13 + 2 + 2);
    // Group commits saw at least every stored and duplicate report.
    expect(
      after.get(sample("calm_collector_group_commit_size_sum", { backend: "duckdb" })),
    ).toBeGreaterThanOrEqual(246);
    expect(after.get(sample("calm_collector_storage_available", { backend: "duckdb" }))).toBe(1);
    expect(deltasBy(before, after, "calm_collector_storage_state_changes_total", "state")).toEqual({
      lost: 1,
      back: 1,
    });

    // The rounds' own counters (storage) agree with the metrics for the refusals counted per round.
    const status = async (id: string) =>
      (await fetch(`${url}/v1/rounds/${id}/status`, { headers: { ...admin, ...from() } })).json();
    const { "round-not-found": _, "round-closed": __, ...perRound } = expectedReports;
    expect(await status(round)).toMatchObject({ accepted: 216, duplicates: 30, rejected: perRound });
    expect(await status(closed)).toMatchObject({ rejected: { "round-closed": 7 } });

    // Round gauges, recomputed once their TTL has passed: 2 rounds, 1 open, 216 ids held.
    // (a scrape past the TTL starts the refresh and shows the last values; a later one the new ones).
    expect(before.get("calm_collector_held_report_ids")).toBe(0);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + ROUND_GAUGES_TTL_MS + 1);
    await scrape();
    let gauges = await scrape();
    for (let i = 0; i < 50 && gauges.get("calm_collector_held_report_ids") === 0; i++)
      gauges = await scrape();
    expect([
      gauges.get("calm_collector_rounds"),
      gauges.get("calm_collector_open_rounds"),
      gauges.get("calm_collector_held_report_ids"),
    ]).toEqual([2, 1, 216]);
  });

  it("labels stay low-cardinality: no round or report id in any sample", async () => {
    const { collector } = await collectors.start("labels.duckdb");
    const records = mixedRecords(1000, 3);
    const { round, plan } = await createRoundFor(collector.url, records, 1000);
    await postReports(collector.url, round, {
      round,
      reports: reportsOf(plan, records, 0, 50, seededRng(1)),
    });
    await fetch(`${collector.url}/v1/rounds/${fixedId(9)}/status`);
    await fetch(`${collector.url}/no/such/${fixedId(8)}`);
    const text = await (await fetch(`${collector.url}/metrics`)).text();
    expect(text).toContain('route="/v1/rounds/:id/reports"');
    expect(text).toContain('route="unmatched"');
    expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
  });

  it("serves /metrics on its own port with metricsPort (and not on the API's)", async () => {
    const { collector } = await collectors.start("port.duckdb", { metricsPort: 0 });
    expect(collector.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(collector.metricsUrl).not.toBe(collector.url);
    await fetch(`${collector.url}/healthz`);
    const text = await (await fetch(`${collector.metricsUrl}/metrics`)).text();
    expect(
      parseMetrics(text).get(
        sample("calm_collector_http_requests_total", {
          route: "/healthz",
          method: "GET",
          status: "200",
        }),
      ),
    ).toBe(1);
    expect((await fetch(`${collector.url}/metrics`)).status).toBe(404);
  });
});
