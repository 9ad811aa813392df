import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CONSOLE_CSP, shippedConsoleDir } from "../src/console-route.js";
import type { CampaignSummary, RoundSummary } from "../src/listing-routes.js";
import { call, duckdbCollectors, packageDir } from "./support.js";

/**
 * The console's route (no browser: headers, the fixed file list, the missing
 * bundle) and the listing endpoints it reads (admin only, filters, counters).
 */

const collectors = duckdbCollectors();

/** A GET without a token (what a stranger's browser sends). */
async function anonymous(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A stand-in bundle: an index.html and one asset (the route serves whatever Vite built). */
function fakeBundle(name: string): string {
  const dir = join(collectors.dir, name);
  mkdirSync(join(dir, "assets"), { recursive: true });
  writeFileSync(join(dir, "index.html"), "<!doctype html><title>console</title>");
  writeFileSync(join(dir, "assets", "index-abc.js"), "console.log(1)");
  writeFileSync(join(dir, "secret.txt"), "not a console file type");
  return dir;
}

describe("the /console route", () => {
  it("serves the bundle's files with a strict CSP, never framed, never cross-origin; only its listed files", async () => {
    const { collector } = await collectors.start("route.duckdb", {
      consoleDir: fakeBundle("bundle"),
      allowOrigins: ["https://app.example"],
    });
    const redirect = await fetch(`${collector.url}/console`, { redirect: "manual" });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get("location")).toBe("/console/");
    const page = await fetch(`${collector.url}/console/`, { headers: { origin: "https://app.example" } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toContain("connect-src 'self'");
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.get("access-control-allow-origin")).toBeNull(); // even for an allowed origin
    expect(await page.text()).toContain("<title>console</title>");
    const asset = await fetch(`${collector.url}/console/assets/index-abc.js`);
    expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(asset.headers.get("cache-control")).toContain("immutable");
    for (const path of [
      "secret.txt",
      "../package.json",
      "%2e%2e/package.json",
      "assets/../../package.json",
      "nope.js",
    ]) {
      const answer = await fetch(`${collector.url}/console/${path}`);
      expect(answer.status, path).toBe(404);
    }
    // The data the page reads needs the token, and no admin route answers a cross-origin preflight.
    expect((await anonymous(`${collector.url}/v1/campaigns`)).status).toBe(401);
    const preflight = await fetch(`${collector.url}/v1/campaigns`, {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "GET" },
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("without a built bundle says how to build it; consoleDir false leaves the route out", async () => {
    const { collector } = await collectors.start("unbuilt.duckdb", {
      consoleDir: join(collectors.dir, "none"),
    });
    const answer = await anonymous(`${collector.url}/console/`);
    expect(answer.status).toBe(404);
    expect(answer.body.reason).toBe("console-not-built");
    expect(answer.body.message).toContain("pnpm --filter @calm-ldp/collector build");
    const { collector: without } = await collectors.start("without.duckdb", { consoleDir: false });
    expect((await anonymous(`${without.url}/console/`)).body.reason).toBe("not-found");
  });

  it("ships its bundle in the package's dist/console", () => {
    expect(shippedConsoleDir()).toBe(join(packageDir, "dist", "console"));
  });
});

describe("GET /v1/campaigns and GET /v1/rounds", () => {
  it("list campaigns and rounds for the admin only, filtered by campaign, with each round's counters", async () => {
    const { collector } = await collectors.start("listings.duckdb", {
      idRetentionMs: 120_000,
      consoleDir: false,
    });
    const url = collector.url;
    const attributes = [
      { name: "a", labels: ["x", "y"] },
      { name: "b", labels: ["u", "v"] },
    ];
    const body = { schema: { attributes }, eps: 1, k: 2, n: 2000 };
    const campaign = (await call(`${url}/v1/campaigns`, "POST", body)).body.campaign as string;
    const next = await call(`${url}/v1/campaigns/${campaign}/rounds`, "POST", {});
    const single = (await call(`${url}/v1/rounds`, "POST", body)).body.round as string;
    await call(`${url}/v1/rounds/${single}/reports`, "POST", {
      round: single,
      reports: [{ id: "x", view: 0 }],
    });

    expect((await anonymous(`${url}/v1/rounds`)).status).toBe(401);
    expect((await call(`${url}/v1/rounds`, "GET", undefined, "wrong-token-wrong-token")).status).toBe(403);
    expect((await call(`${url}/v1/campaigns`, "GET", undefined, "wrong-token-wrong-token")).status).toBe(403);
    expect((await call(`${url}/v1/rounds?campaign=not-a-uuid`, "GET")).body.reason).toBe("schema");
    expect((await call(`${url}/v1/rounds?other=1`, "GET")).body.reason).toBe("schema");

    const all = (await call(`${url}/v1/rounds`, "GET")).body as {
      idRetentionMs: number;
      rounds: RoundSummary[];
    };
    expect(all.idRetentionMs).toBe(120_000);
    expect(all.rounds.map((r) => r.round)).not.toContain(campaign); // the definition is not a round
    expect(all.rounds).toHaveLength(3);
    const ofCampaign = (await call(`${url}/v1/rounds?campaign=${campaign}`, "GET")).body
      .rounds as RoundSummary[];
    expect(ofCampaign.map((r) => r.index)).toEqual([0, 1]);
    expect(ofCampaign[1]!.round).toBe(next.body.round);
    const first = ofCampaign[0]!;
    expect(first.closedAt).not.toBeNull();
    expect(Date.parse(first.idsDropAfter!) - Date.parse(first.closedAt!)).toBe(120_000);
    const status = (await call(`${url}/v1/rounds/${first.round}/status`, "GET")).body;
    expect(status.idsDropAfter).toBe(first.idsDropAfter);
    const none = (await call(`${url}/v1/rounds?campaign=none`, "GET")).body.rounds as RoundSummary[];
    expect(none.map((r) => r.round)).toEqual([single]);
    const singleStatus = (await call(`${url}/v1/rounds/${single}/status`, "GET")).body;
    expect(none[0]).toMatchObject({
      campaign: null,
      index: null,
      closedAt: null,
      idsDropAfter: null,
      accepted: singleStatus.accepted,
      rejected: singleStatus.rejected,
      perView: singleStatus.perView,
      idsHeld: singleStatus.idsHeld,
    });
    expect(Object.values(none[0]!.rejected).reduce((a, b) => a + b, 0)).toBe(1); // the malformed batch

    const campaigns = (await call(`${url}/v1/campaigns`, "GET")).body.campaigns as CampaignSummary[];
    expect(campaigns).toEqual([
      expect.objectContaining({
        campaign,
        rounds: 2,
        openRound: next.body.round,
        eps: 1,
        k: 2,
        roundEveryMs: null,
      }),
    ]);
  });
});
