import type { CalmPlan } from "@calm-ldp/calm-core";
import { seededRng } from "@calm-ldp/random";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type CollectorStorage,
  InvalidParameterError,
  parseAllowedOrigins,
  type RunningCollector,
  startCollector,
} from "../src/index.js";
import { postReports } from "./outage.js";
import { createRoundFor, duckdbCollectors, mixedRecords, reportsOf, roundBody, TOKEN } from "./support.js";

const ALLOWED = "http://app.example.test:8080";
const SECOND = "https://other-allowed.example.test";
const FOREIGN = "https://evil.example.test";

describe("parseAllowedOrigins", () => {
  it("accepts origins as browsers send them, normalising the default port and case", () => {
    expect(
      parseAllowedOrigins(["https://a.example", "http://127.0.0.1:5173", "https://A.Example:443"]),
    ).toEqual(["https://a.example", "http://127.0.0.1:5173", "https://a.example"]);
  });

  it("refuses anything that is not an origin, naming it", () => {
    for (const bad of [
      "*",
      "null",
      "",
      "example.org",
      "ftp://example.org",
      "https://example.org/",
      "https://example.org/app",
      "https://example.org?x=1",
      "https://user:pw@example.org",
      "https://example.org#top",
    ]) {
      expect(() => parseAllowedOrigins([bad]), bad).toThrow(InvalidParameterError);
      expect(() => parseAllowedOrigins([bad]), bad).toThrow(JSON.stringify(bad));
    }
  });
});

describe("CORS: browsers on allowed origins reach the plan and report endpoints, nothing else", () => {
  const collectors = duckdbCollectors();
  let storage: CollectorStorage;
  let collector: RunningCollector;
  let closedByDefault: RunningCollector;
  let round = "";
  let plan: CalmPlan;
  const records = mixedRecords(50, 5);

  beforeAll(async () => {
    ({ collector, storage } = await collectors.start("cors.duckdb", { allowOrigins: [ALLOWED, SECOND] }));
    ({ round, plan } = await createRoundFor(collector.url, records, 1000));
    ({ collector: closedByDefault } = await collectors.start("default.duckdb"));
  });

  const reportsBody = (from: number, count: number) => {
    const rng = seededRng(from + 1);
    return JSON.stringify({
      round,
      reports: reportsOf(plan, records, from, count, rng),
    });
  };
  const preflight = (base: string, path: string, origin: string, method: string) =>
    fetch(`${base}${path}`, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": method,
        "access-control-request-headers": "content-type",
      },
    });
  const corsHeaders = (response: Response) =>
    [
      "access-control-allow-origin",
      "access-control-allow-methods",
      "access-control-allow-headers",
      "access-control-allow-credentials",
      "access-control-expose-headers",
      "access-control-max-age",
    ].filter((name) => response.headers.get(name) !== null);

  /** The answer has `status` and no CORS header at all. */
  const expectNoCors = (response: Response, status: number, what?: string) => {
    expect(response.status, what).toBe(status);
    expect(corsHeaders(response), what).toEqual([]);
  };

  it("answers the preflight of the report endpoint for an allowed origin, with exactly that origin", async () => {
    for (const origin of [ALLOWED, SECOND]) {
      const response = await preflight(collector.url, `/v1/rounds/${round}/reports`, origin, "POST");
      expect(response.status).toBe(204);
      expect(response.headers.get("access-control-allow-origin")).toBe(origin);
      expect(response.headers.get("access-control-allow-methods")).toBe("POST");
      expect(response.headers.get("access-control-allow-headers")).toBe("content-type");
      expect(response.headers.get("access-control-allow-credentials")).toBeNull();
      expect(response.headers.get("vary")).toMatch(/Origin/);
    }
    const plan = await preflight(collector.url, `/v1/rounds/${round}/plan`, ALLOWED, "GET");
    expect(plan.status).toBe(204);
    expect(plan.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    expect(plan.headers.get("access-control-allow-methods")).toBe("GET");
  });

  it("a cross-origin POST from an allowed origin is stored and carries the allow header", async () => {
    const response = await postReports(collector.url, round, reportsBody(0, 10), { origin: ALLOWED });
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    expect(response.headers.get("vary")).toMatch(/Origin/);
    expect(await response.json()).toEqual({ acknowledged: 10, stored: 10, duplicates: 0 });
    // The plan too; and an error answer of these endpoints is readable by the page.
    const fetched = await fetch(`${collector.url}/v1/rounds/${round}/plan`, { headers: { origin: ALLOWED } });
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get("access-control-allow-origin")).toBe(ALLOWED);
    const refused = await postReports(collector.url, round, { round, reports: [] }, { origin: ALLOWED });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("access-control-allow-origin")).toBe(ALLOWED);
  });

  it("another origin gets no allow header: preflight refused, responses without it", async () => {
    const pre = await preflight(collector.url, `/v1/rounds/${round}/reports`, FOREIGN, "POST");
    expectNoCors(pre, 403);
    expect(((await pre.json()) as { reason: string }).reason).toBe("cross-origin-refused");
    // A preflight asking for another method than the endpoint's is refused too.
    const wrongMethod = await preflight(collector.url, `/v1/rounds/${round}/reports`, ALLOWED, "PUT");
    expectNoCors(wrongMethod, 403);
    // Near misses of an allowed origin are other origins.
    for (const near of [
      "http://app.example.test:8081",
      "https://app.example.test:8080",
      "http://app.example.test",
    ]) {
      const response = await fetch(`${collector.url}/v1/rounds/${round}/plan`, { headers: { origin: near } });
      expectNoCors(response, 200, near);
    }
    const post = await postReports(collector.url, round, reportsBody(10, 5), { origin: FOREIGN });
    expect(corsHeaders(post)).toEqual([]);
  });

  it("admin endpoints never carry CORS headers and refuse every preflight, even from an allowed origin", async () => {
    const auth = { authorization: `Bearer ${TOKEN}`, origin: ALLOWED };
    const adminPaths: [string, string][] = [
      ["/v1/rounds", "POST"],
      [`/v1/rounds/${round}/status`, "GET"],
      [`/v1/rounds/${round}/marginals?attrs=q0,q1`, "GET"],
      ["/healthz", "GET"],
      ["/v1/nowhere", "GET"],
    ];
    for (const [path, method] of adminPaths) {
      const pre = await preflight(collector.url, path, ALLOWED, method);
      expectNoCors(pre, 403, path);
    }
    const status = await fetch(`${collector.url}/v1/rounds/${round}/status`, { headers: auth });
    expectNoCors(status, 200);
    const marginal = await fetch(`${collector.url}/v1/rounds/${round}/marginals?attrs=q0,q1`, {
      headers: auth,
    });
    expectNoCors(marginal, 200);
    const create = await fetch(`${collector.url}/v1/rounds`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify(roundBody(records, 1, 2, 1000)),
    });
    expectNoCors(create, 201);
    const unauthorised = await fetch(`${collector.url}/v1/rounds/${round}/status`, {
      headers: { origin: ALLOWED },
    });
    expectNoCors(unauthorised, 401);
  });

  it("by default no origin is allowed", async () => {
    const { round: other } = await createRoundFor(closedByDefault.url, records, 1000);
    const pre = await preflight(closedByDefault.url, `/v1/rounds/${other}/reports`, ALLOWED, "POST");
    expectNoCors(pre, 403);
    const fetched = await fetch(`${closedByDefault.url}/v1/rounds/${other}/plan`, {
      headers: { origin: ALLOWED },
    });
    expectNoCors(fetched, 200);
  });

  it("startCollector refuses a malformed origin before listening", async () => {
    await expect(
      startCollector({
        storage,
        adminToken: TOKEN,
        allowOrigins: ["https://ok.example", "https://x.example/"],
      }),
    ).rejects.toThrow(/"https:\/\/x\.example\/" is not an origin/);
  });
});
