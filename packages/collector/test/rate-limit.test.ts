import { join } from "node:path";
import { seededRng } from "@calm-ldp/random";
import { beforeAll, describe, expect, it } from "vitest";
import { openDuckDbStorage } from "../src/duckdb.js";
import { type RunningCollector, startCollector } from "../src/index.js";
import { createRoundFor, duckdbCollectors, mixedRecords, reportsOf, suiteTempDir, TOKEN } from "./support.js";

const ORIGIN = "http://page.example.test";

describe("rate limit per client address", () => {
  const collectors = duckdbCollectors();
  let limited: RunningCollector;
  let open: RunningCollector;
  const records = mixedRecords(100, 9);

  beforeAll(async () => {
    ({ collector: limited } = await collectors.start("limited.duckdb", {
      rateLimit: { perSecond: 0.5, burst: 5 }, // one token per 2 s: slow requests on a loaded machine refill little
      allowOrigins: [ORIGIN],
    }));
    ({ collector: open } = await collectors.start("open.duckdb"));
  });

  it("answers 429 rate-limited with Retry-After beyond the burst, counts it, stores nothing of it, and recovers", async () => {
    const { round, plan } = await createRoundFor(limited.url, records, 1000); // 1 token
    const rng = seededRng(10);
    const batch = (from: number) =>
      JSON.stringify({
        round,
        reports: reportsOf(plan, records, from, 5, rng),
      });
    const post = (from: number) =>
      fetch(`${limited.url}/v1/rounds/${round}/reports`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: ORIGIN },
        body: batch(from),
      });
    // 4 tokens left of the burst of 5 (the round creation took one): 4 batches pass, then 429s.
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await post(5 * i));
    const statuses = answers.map((r) => r.status);
    expect(statuses.slice(0, 4)).toEqual([200, 200, 200, 200]);
    const refused = answers.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(3); // a refill (one per 2 s) may let one more through
    for (const response of refused) {
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      // The page on the allowed origin can read why.
      expect(response.headers.get("access-control-allow-origin")).toBe(ORIGIN);
      expect(await response.json()).toMatchObject({ statusCode: 429, reason: "rate-limited" });
    }
    const accepted = statuses.filter((s) => s === 200).length;
    // Admin endpoints count too: wait for two tokens, then read status and /healthz.
    await new Promise((resolve) => setTimeout(resolve, 4100));
    const status = await fetch(`${limited.url}/v1/rounds/${round}/status`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(status.status).toBe(200);
    // Only the batches let through were stored; refused ones are not counted against the round.
    expect(await status.json()).toMatchObject({ accepted: 5 * accepted, rejected: {} });
    const health = (await (await fetch(`${limited.url}/healthz`)).json()) as {
      refused: Record<string, number>;
    };
    expect(health.refused["rate-limited"]).toBe(refused.length);
    // An admin endpoint's 429 carries no CORS header, even for an allowed origin.
    const admin = async () =>
      fetch(`${limited.url}/v1/rounds/${round}/status`, {
        headers: { authorization: `Bearer ${TOKEN}`, origin: ORIGIN },
      });
    let adminRefused: Response | undefined;
    for (let i = 0; i < 10 && adminRefused === undefined; i++) {
      const response = await admin();
      if (response.status === 429) adminRefused = response;
    }
    expect(adminRefused?.status).toBe(429);
    expect(adminRefused?.headers.get("access-control-allow-origin")).toBeNull();
    // After waiting Retry-After (seconds), the same address is served again.
    const wait = Number(adminRefused?.headers.get("retry-after"));
    expect(wait).toBeGreaterThanOrEqual(1);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    expect((await post(60)).status).toBe(200);
  });

  it("is off by default: the same burst is served in full", async () => {
    const { round: other } = await createRoundFor(open.url, records, 1000);
    const statuses = await Promise.all(
      Array.from({ length: 30 }, () => fetch(`${open.url}/v1/rounds/${other}/plan`).then((r) => r.status)),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    const health = (await (await fetch(`${open.url}/healthz`)).json()) as { refused: Record<string, number> };
    expect(health.refused["rate-limited"]).toBeUndefined();
  });

  it("refuses a malformed limit at start", async () => {
    const storage = await openDuckDbStorage(join(collectors.dir, "bad.duckdb"));
    await expect(startCollector({ storage, adminToken: TOKEN, rateLimit: { perSecond: 0 } })).rejects.toThrow(
      /requests per second must be > 0/,
    );
    await storage.close();
  });
});

describe("rate limit behind a reverse proxy", () => {
  const dir = suiteTempDir();

  const plans = async (url: string, forwardedFor: string[]) => {
    const statuses: number[] = [];
    for (const address of forwardedFor)
      statuses.push((await fetch(`${url}/healthz`, { headers: { "x-forwarded-for": address } })).status);
    return statuses;
  };

  it("counts per forwarded address only for trusted proxies; otherwise X-Forwarded-For is ignored", async () => {
    const limit = { perSecond: 0.01, burst: 1 };
    const direct = await startCollector({
      storage: await openDuckDbStorage(join(dir, "direct.duckdb")),
      adminToken: TOKEN,
      rateLimit: limit,
    });
    const proxied = await startCollector({
      storage: await openDuckDbStorage(join(dir, "proxied.duckdb")),
      adminToken: TOKEN,
      rateLimit: limit,
      trustProxy: "127.0.0.1",
    });
    try {
      // Untrusted: a client cannot dodge the limit by naming other addresses.
      expect(await plans(direct.url, ["198.51.100.1", "198.51.100.2", "198.51.100.3"])).toEqual([
        200, 429, 429,
      ]);
      // Behind a trusted proxy (loopback here): one bucket per client the proxy names.
      expect(await plans(proxied.url, ["198.51.100.1", "198.51.100.2", "198.51.100.1"])).toEqual([
        200, 200, 429,
      ]);
      const storage = await openDuckDbStorage(join(dir, "bad.duckdb"));
      await expect(startCollector({ storage, adminToken: TOKEN, trustProxy: "everyone" })).rejects.toThrow(
        /trustProxy must list proxy addresses or CIDR ranges/,
      );
      await storage.close();
    } finally {
      await direct.close();
      await proxied.close();
    }
  });
});
