import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  adminRequest,
  bundlePage,
  chromiumOrSkip,
  collectPageErrors,
  launchChromium,
  serveTestPage,
} from "./browser-support.js";
import { serveCollectorCli } from "./cli-process.js";

/**
 * Cross-origin reports in a real browser: Debian's Chromium (playwright-core) loads a
 * static page holding @calm-ldp/client (bundled for the browser, from source) from
 * origin A; the page fetches a round's plan from a collector on origin B (a
 * `calm-ldp collector serve --allow-origin A` process on another port) and posts 200
 * perturbed reports; the collector counts them. The same page served from origin C
 * (not allowed) gets nothing: the browser refuses the plan answer and the report
 * preflight, `fetch` rejects, and nothing is stored.
 */

const PAGE_DIR = fileURLToPath(new URL("./cors-page/", import.meta.url));
const TOKEN = "web-cors-admin-token-0123456789";
const N = 200;

const missing = chromiumOrSkip(
  "web CORS e2e",
  "the cross-origin browser test (apps/web/test/web-cors.test.ts)",
);

const admin = (url: string, method = "GET", body?: unknown) => adminRequest(TOKEN, url, method, body);

describe.skipIf(missing !== undefined)("cross-origin reports from a page in headless Chromium", () => {
  const dir = mkdtempSync(join(tmpdir(), "calm-web-cors-"));
  let allowed: { server: Server; origin: string };
  let other: { server: Server; origin: string };
  let collector: { child: ChildProcess; url: string };
  let context: BrowserContext;

  beforeAll(async () => {
    const script = await bundlePage(PAGE_DIR);
    allowed = await serveTestPage(PAGE_DIR, script);
    other = await serveTestPage(PAGE_DIR, script);
    collector = await serveCollectorCli(join(dir, "collector.duckdb"), allowed.origin, TOKEN);
    context = await launchChromium(join(dir, "profile"));
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    collector?.child.kill("SIGTERM");
    await Promise.all([allowed, other].map((site) => new Promise((resolve) => site?.server.close(resolve))));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Open the page from `origin`; resolves with its result and the browser's console errors. */
  async function runPage(origin: string, round: string) {
    const page = await context.newPage();
    const errors: string[] = [];
    collectPageErrors(page, errors);
    const query = new URLSearchParams({ collector: collector.url, round, n: String(N) });
    await page.goto(`${origin}/?${query}`);
    await page.waitForSelector("body[data-done='1']", { timeout: 60_000 });
    const result = (await page.evaluate(() => (window as unknown as { result: unknown }).result)) as Record<
      string,
      unknown
    >;
    await page.close();
    return { result, errors };
  }

  it("a page on the allowed origin A posts reports to the collector on origin B; they are counted", async () => {
    expect(new URL(allowed.origin).port).not.toBe(new URL(collector.url).port);
    const created = await admin(`${collector.url}/v1/rounds`, "POST", {
      schema: { attributes: Array.from({ length: 4 }, (_, i) => ({ name: `f${i}`, labels: ["off", "on"] })) },
      eps: 1,
      k: 2,
      n: 1000,
    });
    const round = created.round as string;
    const { result, errors } = await runPage(allowed.origin, round);
    expect(result.planError, String(result.planError)).toBeUndefined();
    expect(result.postError, String(result.postError)).toBeUndefined();
    expect(result).toMatchObject({ origin: allowed.origin, acknowledged: N, stored: N });
    expect(errors).toEqual([]);
    const status = await admin(`${collector.url}/v1/rounds/${round}/status`);
    expect(status).toMatchObject({ accepted: N, duplicates: 0, rejected: {} });
    expect(status.perView).toEqual(result.perView);

    // The same page from origin C: the browser refuses the plan answer (no allow header)
    // and the report preflight (403); fetch rejects with a TypeError; nothing is stored.
    const refused = await runPage(other.origin, round);
    expect(refused.result.origin).toBe(other.origin);
    expect(refused.result.planError).toMatch(/^TypeError: Failed to fetch/);
    expect(refused.result.postError).toMatch(/^TypeError: Failed to fetch/);
    expect(refused.result.acknowledged).toBeUndefined();
    expect(refused.errors.filter((e) => /blocked by CORS policy/.test(e)).length).toBe(2);
    expect(await admin(`${collector.url}/v1/rounds/${round}/status`)).toMatchObject({ accepted: N });
    const health = (await (await fetch(`${collector.url}/healthz`)).json()) as {
      refused: Record<string, number>;
    };
    expect(health.refused["cross-origin-refused"]).toBe(1); // C's report preflight
  }, 180_000);
});
