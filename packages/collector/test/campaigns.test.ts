import { CalmAggregator, estimateCalm } from "@calm-ldp/calm-core";
import {
  CollectorResponseError,
  createReport,
  createReporter,
  fetchCampaignRound,
  memoryStorage,
  type Reporter,
  readPlan,
  sendReports,
  type WireReport,
} from "@calm-ldp/client";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it, vi } from "vitest";
import { campaignRoundId, parseRoundEvery, uuidV5 } from "../src/campaigns.js";
import { decodeReport } from "../src/decode-report.js";
import type { RunningCollector } from "../src/index.js";
import { call, duckdbCollectors, TOKEN } from "./support.js";

/** A request without the admin token (what a browser or a stranger sends). */
async function anonymous(url: string, method = "GET", body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const attributes = Array.from({ length: 5 }, (_, i) => ({ name: `a${i}`, labels: ["no", "yes"] }));
const campaignBody = (extra: Record<string, unknown> = {}) => ({
  schema: { attributes },
  eps: 1,
  k: 2,
  n: 3000,
  ...extra,
});

/** A seeded record: a0 ~ Bern(share), a1 = a0 w.p. 0.8, the rest Bern(1/2). */
function record(rng: ReturnType<typeof seededRng>, share: number): number[] {
  const u = () => rng.nextUint32() / 2 ** 32;
  const a0 = u() < share ? 1 : 0;
  return [a0, u() < 0.8 ? a0 : 1 - a0, u() < 0.5 ? 1 : 0, u() < 0.5 ? 1 : 0, u() < 0.5 ? 1 : 0];
}

describe("campaign round ids", () => {
  it("are version-5 UUIDs of (campaign, index): the same in every collector, one per index", () => {
    // RFC 9562 appendix A.4: www.example.com in the DNS namespace.
    expect(uuidV5("6ba7b810-9dad-11d1-80b4-00c04fd430c8", "www.example.com")).toBe(
      "2ed6657d-e927-568b-95e1-2665a8aea6a2",
    );
    const campaign = "0b9f4a36-5f0e-4c61-9d7e-3f2a1c0d8e7b";
    const ids = Array.from({ length: 100 }, (_, i) => campaignRoundId(campaign, i));
    expect(new Set(ids).size).toBe(100);
    expect(campaignRoundId(campaign, 7)).toBe(ids[7]);
    expect(campaignRoundId("1b9f4a36-5f0e-4c61-9d7e-3f2a1c0d8e7b", 7)).not.toBe(ids[7]);
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(() => campaignRoundId("not-a-uuid", 0)).toThrow(/not a UUID/);
  });
});

describe("campaigns: one plan, a sequence of rounds (DuckDB, loopback)", () => {
  const collectors = duckdbCollectors();
  let collector: RunningCollector | undefined;

  it("3 rounds opened and closed by the admin API; persistent reporters; per-round estimates and a time series equal to in-process CALM", async () => {
    ({ collector } = await collectors.start("campaigns.duckdb"));
    const url = collector.url;
    const created = await call(`${url}/v1/campaigns`, "POST", campaignBody());
    expect(created.status).toBe(201);
    const campaign = created.body.campaign as string;
    const plan = readPlan(created.body.plan);
    expect(created.body).toMatchObject({ index: 0, roundEveryMs: null, instantEps: null });

    // Clients find the open round (public endpoint, no token; the client's fetchCampaignRound).
    const current = await fetchCampaignRound(url, campaign);
    expect(current).toMatchObject({
      campaign,
      round: created.body.round,
      index: 0,
      closesAt: null,
      instantEps: null,
    });
    expect(current.plan).toEqual(plan);
    const missing = await fetchCampaignRound(url, "00000000-0000-4000-8000-000000000000").catch((e) => e);
    expect(missing).toBeInstanceOf(CollectorResponseError);
    expect(missing).toMatchObject({ status: 404, reason: "campaign-not-found" });

    const users = 1500;
    const rng = seededRng(15);
    const records = Array.from({ length: users }, () => record(rng, 0.3));
    const sent = new Map<string, WireReport[]>();
    // The devices' deliveries, gathered into batches of up to 1000 per round (one POST each).
    let waiting: { round: string; reports: readonly WireReport[]; done: (error?: unknown) => void }[] = [];
    const post = async () => {
      const batch = waiting;
      waiting = [];
      for (const round of new Set(batch.map((w) => w.round))) {
        const mine = batch.filter((w) => w.round === round);
        for (let i = 0; i < mine.length; i += 1000) {
          const part = mine.slice(i, i + 1000);
          const reports = part.flatMap((w) => [...w.reports]);
          try {
            await sendReports(url, round, reports);
            sent.set(round, [...(sent.get(round) ?? []), ...reports]);
            for (const w of part) w.done();
          } catch (error) {
            for (const w of part) w.done(error);
          }
        }
      }
    };
    const send = (round: string, reports: readonly WireReport[]) =>
      new Promise<void>((resolve, reject) => {
        if (waiting.length === 0) setTimeout(post, 0);
        waiting.push({ round, reports, done: (error) => (error ? reject(error) : resolve()) });
      });
    const storages = records.map(() => memoryStorage());
    const reporters: Reporter[] = [];
    for (let u = 0; u < users; u++)
      reporters.push(
        await createReporter({
          plan,
          storage: storages[u]!,
          maxEps: 10,
          campaign,
          send,
          rng: seededRng(1000 + u),
        }),
      );
    const roundIds: string[] = [];
    const firstReports: WireReport[] = [];
    for (let t = 0; t < 3; t++) {
      if (t > 0) {
        const next = await call(`${url}/v1/campaigns/${campaign}/rounds`, "POST");
        expect(next.status).toBe(201);
        expect(next.body).toMatchObject({ index: t, closed: roundIds[t - 1] });
        // 10% of the users change their record between rounds.
        for (let u = 0; u < users; u++)
          if (rng.nextUint32() < 0.1 * 2 ** 32) records[u] = record(rng, 0.3 + 0.2 * t);
      }
      const open = await anonymous(`${url}/v1/campaigns/${campaign}/current`);
      expect(open.body.index).toBe(t);
      const round = open.body.round as string;
      roundIds.push(round);
      const results = await Promise.all(reporters.map((r, u) => r.report(records[u]!, { round })));
      for (const { report, flush } of results) {
        expect(flush).toMatchObject({ sent: 1, pending: 0, refused: [] });
        if (t === 0) firstReports.push(report);
      }
    }
    // A device restarted between rounds keeps its group and memo: same plan for every round.
    const restarted = await createReporter({ plan, storage: storages[0]!, maxEps: 10, campaign });
    expect(restarted.ledger()).toMatchObject({ start: "restored", rounds: 3, view: firstReports[0]!.view });
    const unchanged = reporters.filter((r) => r.ledger().memoized === 1).length;
    expect(unchanged).toBeGreaterThan(0.7 * users);
    for (const r of reporters) expect(r.ledger().eps).toBe(plan.eps * r.ledger().memoized);

    // A report for a closed round: 409 round-closed, refused for good, nothing counted.
    const late = await reporters[1]!.report(records[1]!, { round: roundIds[0]! }).catch((e) => e);
    expect(late).toMatchObject({ problem: "round" }); // this device already reported that round
    const stranger = await createReporter({ plan, storage: memoryStorage(), maxEps: 10, campaign, send });
    const refused = await stranger.report(records[1]!, { round: roundIds[0]! });
    expect(refused.flush.refused).toMatchObject([{ status: 409, reason: "round-closed" }]);

    // The campaign: 3 rounds, the first two closed.
    const described = await call(`${url}/v1/campaigns/${campaign}`, "GET");
    expect(described.status).toBe(200);
    const rounds = described.body.rounds as { round: string; index: number; closedAt: string | null }[];
    expect(rounds.map((r) => [r.round, r.index, r.closedAt === null])).toEqual([
      [roundIds[0], 0, false],
      [roundIds[1], 1, false],
      [roundIds[2], 2, true],
    ]);

    // Time series of a 2-way marginal: every round equals the in-process estimate of its reports.
    const series = await call(`${url}/v1/campaigns/${campaign}/marginals?attrs=a0,a1`, "GET");
    expect(series.status).toBe(200);
    const points = series.body.series as { round: string; index: number; n: number; cells: number[] }[];
    expect(points.map((p) => p.round)).toEqual(roundIds);
    for (const point of points) {
      const aggregator = new CalmAggregator(plan);
      for (const wire of sent.get(point.round)!) aggregator.add(decodeReport(plan, wire));
      expect(point.n).toBe(users);
      expect(point.cells).toEqual(Array.from(estimateCalm(plan, aggregator).query([0, 1]).cells));
    }
    // ?interval=0.95: every round's point carries calm-core's per-cell interval, cells unchanged.
    const withIntervals = await call(
      `${url}/v1/campaigns/${campaign}/marginals?attrs=a0,a1&interval=0.95`,
      "GET",
    );
    expect(withIntervals.status).toBe(200);
    const intervalPoints = withIntervals.body.series as (Record<string, unknown> & { round: string })[];
    for (const [i, point] of intervalPoints.entries()) {
      expect(point.cells).toEqual(points[i]!.cells);
      const aggregator = new CalmAggregator(plan);
      for (const wire of sent.get(point.round)!) aggregator.add(decodeReport(plan, wire));
      const core = estimateCalm(plan, aggregator).query([0, 1], { interval: 0.95 });
      expect(point).toMatchObject({ level: 0.95, intervalMethod: core.intervalMethod });
      expect(point.lower).toEqual(Array.from(core.lower));
      expect(point.upper).toEqual(Array.from(core.upper));
      expect(point.standardError).toEqual(Array.from(core.standardError));
    }
    expect(
      (await call(`${url}/v1/campaigns/${campaign}/marginals?attrs=a0,a1&interval=2`, "GET")).body,
    ).toMatchObject({ statusCode: 400, reason: "invalid-query" });
    expect(
      (
        await call(
          `${url}/v1/campaigns/${campaign}/marginals?attrs=a0,a1&interval=0.9&estimator=calm-plus`,
          "GET",
        )
      ).body,
    ).toMatchObject({ statusCode: 400, reason: "interval-unavailable" });
    // from/to by round index and by time.
    const middle = await call(`${url}/v1/campaigns/${campaign}/marginals?attrs=a0,a1&from=1&to=1`, "GET");
    expect((middle.body.series as { index: number }[]).map((p) => p.index)).toEqual([1]);
    const opened = rounds.map((r) => (r as unknown as { openedAt: string }).openedAt);
    const byTime = await call(
      `${url}/v1/campaigns/${campaign}/marginals?attrs=a2&from=${encodeURIComponent(opened[1]!)}`,
      "GET",
    );
    expect((byTime.body.series as { index: number }[]).map((p) => p.index)).toEqual([1, 2]);
    expect(
      (await call(`${url}/v1/campaigns/${campaign}/marginals?attrs=a0&from=yesterday`, "GET")).body,
    ).toMatchObject({ reason: "invalid-range" });

    // Unknown campaign, the definition is not a round to report to, admin only.
    const unknown = "00000000-0000-4000-8000-000000000000";
    for (const path of [`/v1/campaigns/${unknown}/current`, `/v1/campaigns/${unknown}`]) {
      const answer = await call(`${url}${path}`, "GET");
      expect(answer).toMatchObject({ status: 404, body: { reason: "campaign-not-found" } });
    }
    expect((await call(`${url}/v1/campaigns/${unknown}/rounds`, "POST")).status).toBe(404);
    const toDefinition = await sendReports(url, campaign, [firstReports[0]!]).catch((e) => e);
    expect(toDefinition).toMatchObject({ status: 409, reason: "round-closed" });
    expect((await anonymous(`${url}/v1/campaigns`, "POST", campaignBody())).status).toBe(401);
    expect((await anonymous(`${url}/v1/campaigns/${campaign}`)).status).toBe(401);
    // Rounds cannot be tagged into a campaign through the rounds API.
    const forged = await call(`${url}/v1/rounds`, "POST", { ...campaignBody(), campaign: { id: campaign } });
    expect(forged).toMatchObject({ status: 400, body: { reason: "schema" } });
    // The last round closed through the rounds API: no open round until the admin opens one.
    expect((await call(`${url}/v1/rounds/${roundIds[2]}/close`, "POST")).status).toBe(200);
    expect(await anonymous(`${url}/v1/campaigns/${campaign}/current`)).toMatchObject({
      status: 404,
      body: { reason: "no-open-round" },
    });
    expect(await fetchCampaignRound(url, campaign).catch((e) => e)).toMatchObject({
      status: 404,
      reason: "no-open-round",
    });
    // A new round without reports yet: its point has no interval and says why; the earlier rounds keep theirs.
    expect((await call(`${url}/v1/campaigns/${campaign}/rounds`, "POST")).status).toBe(201);
    const fresh = await call(`${url}/v1/campaigns/${campaign}/marginals?attrs=a0,a1&interval=0.95`, "GET");
    expect(fresh.status).toBe(200);
    const freshPoints = fresh.body.series as Record<string, unknown>[];
    expect(freshPoints).toHaveLength(4);
    expect(freshPoints.slice(0, 3).every((p) => Array.isArray(p.lower))).toBe(true);
    expect(freshPoints[3]!.lower).toBeUndefined();
    expect(freshPoints[3]!.noInterval).toMatch(/reports in every view/);
  }, 120_000);

  it("--round-every: a round older than the schedule is closed and the next opened when the campaign is read", async () => {
    const url = collector!.url;
    // The collector's clock (Date) moves only when told: each window is 1 s of that clock, so
    // a slow machine cannot push the report meant for a window past its end (with real time,
    // one second for the roll-over, a status read and the report was a race under load).
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      await roundEvery(url);
    } finally {
      vi.useRealTimers();
    }
  });

  /** The scheduled campaign's checks, on the fake clock (`vi.setSystemTime` moves it). */
  async function roundEvery(url: string) {
    expect(
      (await call(`${url}/v1/campaigns`, "POST", campaignBody({ roundEvery: "1x" }))).body,
    ).toMatchObject({ reason: "invalid-campaign" });
    const created = await call(`${url}/v1/campaigns`, "POST", campaignBody({ roundEvery: 1000 }));
    expect(created.body).toMatchObject({ index: 0, roundEveryMs: 1000 });
    const campaign = created.body.campaign as string;
    const first = await anonymous(`${url}/v1/campaigns/${campaign}/current`);
    expect(first.body).toMatchObject({ index: 0, round: created.body.round });
    expect(Date.parse(first.body.closesAt as string) - Date.parse(first.body.openedAt as string)).toBe(1000);
    vi.setSystemTime(Date.now() + 1100);
    // Two clients asking at once get the same new round (roll-overs are serialized).
    const [a, b] = await Promise.all([
      anonymous(`${url}/v1/campaigns/${campaign}/current`),
      anonymous(`${url}/v1/campaigns/${campaign}/current`),
    ]);
    expect(a.body).toMatchObject({ index: 1 });
    expect(b.body.round).toBe(a.body.round);
    const status = await call(`${url}/v1/rounds/${created.body.round}/status`, "GET");
    expect(status.body.closedAt).not.toBeNull();
    // A report for the new round after its window, before anyone read the campaign: refused.
    const plan = readPlan(created.body.plan);
    const ok = await sendReports(url, a.body.round as string, [createReport(plan, [0, 1, 0, 1, 0])]);
    expect(ok).toMatchObject({ acknowledged: 1 });
    vi.setSystemTime(Date.now() + 1100);
    const late = await sendReports(url, a.body.round as string, [createReport(plan, [0, 1, 0, 1, 0])]).catch(
      (e) => e,
    );
    expect(late).toMatchObject({ status: 409, reason: "round-closed" });
    const lateStatus = await call(`${url}/v1/rounds/${a.body.round}/status`, "GET");
    expect(lateStatus.body).toMatchObject({ accepted: 1, rejected: { "round-closed": 1 } });
    expect(parseRoundEvery("1d")).toBe(86_400_000);
    expect(parseRoundEvery("15m")).toBe(900_000);
  }

  it("instantEps: the series is de-biased for the composed mechanism", async () => {
    const url = collector!.url;
    const created = await call(`${url}/v1/campaigns`, "POST", campaignBody({ instantEps: 1 }));
    const campaign = created.body.campaign as string;
    const plan = readPlan(created.body.plan);
    const round = created.body.round as string;
    const rng = seededRng(77);
    const reports: WireReport[] = [];
    for (let u = 0; u < 600; u++) {
      const reporter = await createReporter({
        plan,
        storage: memoryStorage(),
        maxEps: 1,
        instantEps: 1,
        campaign,
        rng: seededRng(u),
      });
      reports.push((await reporter.report(record(rng, 0.5), { round })).report);
    }
    await sendReports(url, round, reports.slice(0, 300));
    await sendReports(url, round, reports.slice(300));
    const series = await call(`${url}/v1/campaigns/${campaign}/marginals?attrs=a0,a1`, "GET");
    const aggregator = new CalmAggregator(plan);
    for (const wire of reports) aggregator.add(decodeReport(plan, wire));
    expect(series.body).toMatchObject({ instantEps: 1 });
    const point = (series.body.series as { cells: number[]; expectedSse: null }[])[0]!;
    expect(point.cells).toEqual(
      Array.from(estimateCalm(plan, aggregator, { instantEps: 1 }).query([0, 1]).cells),
    );
    expect(point.expectedSse).toBeNull();
    // No variance model for the composed mechanism: intervals are refused, on both endpoints.
    for (const path of [`/v1/campaigns/${campaign}/marginals`, `/v1/rounds/${round}/marginals`])
      expect((await call(`${url}${path}?attrs=a0,a1&interval=0.95`, "GET")).body).toMatchObject({
        statusCode: 400,
        reason: "interval-unavailable",
      });
    // The round's own marginal endpoint de-biases the same way.
    const own = await call(`${url}/v1/rounds/${round}/marginals?attrs=a0,a1`, "GET");
    expect(own.body).toMatchObject({ cells: point.cells, expectedSse: null, n: 600 });
  });

  it("CORS on the public current endpoint: an allowed origin gets its preflight and header; another origin and the admin routes do not", async () => {
    const allowed = "https://app.example.org";
    const { collector: cors } = await collectors.start("cors.duckdb", { allowOrigins: [allowed] });
    try {
      const created = await call(`${cors.url}/v1/campaigns`, "POST", campaignBody());
      const path = `/v1/campaigns/${created.body.campaign}/current`;
      const preflight = (origin: string, target = path) =>
        fetch(`${cors.url}${target}`, {
          method: "OPTIONS",
          headers: { origin, "access-control-request-method": "GET" },
        });
      const ok = await preflight(allowed);
      expect(ok.status).toBe(204);
      expect(ok.headers.get("access-control-allow-origin")).toBe(allowed);
      const other = await preflight("https://evil.example.net");
      expect(other.status).toBe(403);
      expect(other.headers.get("access-control-allow-origin")).toBeNull();
      expect((await preflight(allowed, `/v1/campaigns/${created.body.campaign}`)).status).toBe(403);
      const get = await fetch(`${cors.url}${path}`, { headers: { origin: allowed } });
      expect(get.status).toBe(200);
      expect(get.headers.get("access-control-allow-origin")).toBe(allowed);
      const admin = await fetch(`${cors.url}/v1/campaigns/${created.body.campaign}`, {
        headers: { origin: allowed, authorization: `Bearer ${TOKEN}` },
      });
      expect(admin.status).toBe(200);
      expect(admin.headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await cors.close();
    }
  });
});
