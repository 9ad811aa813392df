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
 * Protected mode in a real browser: Debian's Chromium loads a page (origin A) holding
 * @calm-ldp/client and its `tokens` subpath; the page obtains a Privacy Pass token from a
 * `calm-ldp collector serve --require-tokens --attester test --allow-origin A` process
 * (origin B), spends it on one report, and remembers the round; a reload does not ask for
 * a second token and sends nothing, and the collector counts one report.
 */

const PAGE_DIR = fileURLToPath(new URL("./token-page/", import.meta.url));
const TOKEN = "web-tokens-admin-token-0123456789";

const missing = chromiumOrSkip(
  "web tokens e2e",
  "the protected-mode browser test (apps/web/test/web-tokens.test.ts)",
);

const admin = (url: string, method = "GET", body?: unknown) => adminRequest(TOKEN, url, method, body);

describe.skipIf(missing !== undefined)("protected-mode reports from a page in headless Chromium", () => {
  const dir = mkdtempSync(join(tmpdir(), "calm-web-tokens-"));
  let site: { server: Server; origin: string };
  let collector: { child: ChildProcess; url: string };
  let context: BrowserContext;

  beforeAll(async () => {
    const script = await bundlePage(PAGE_DIR);
    site = await serveTestPage(PAGE_DIR, script);
    collector = await serveCollectorCli(join(dir, "collector.duckdb"), site.origin, TOKEN, [
      "--require-tokens",
      "--attester",
      "test",
    ]);
    context = await launchChromium(join(dir, "profile"));
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    collector?.child.kill("SIGTERM");
    await new Promise((resolve) => site?.server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it("obtains a token, reports once across origins, and a reload spends no second token", async () => {
    const created = await admin(`${collector.url}/v1/rounds`, "POST", {
      schema: { attributes: Array.from({ length: 4 }, (_, i) => ({ name: `f${i}`, labels: ["off", "on"] })) },
      eps: 1,
      k: 2,
      n: 1000,
    });
    const round = created.round as string;
    const page = await context.newPage();
    const errors: string[] = [];
    collectPageErrors(page, errors);
    const url = `${site.origin}/?${new URLSearchParams({ collector: collector.url, round })}`;
    const run = async () => {
      await page.waitForSelector("body[data-done='1']", { timeout: 60_000 });
      return (await page.evaluate(() => (window as unknown as { result: unknown }).result)) as Record<
        string,
        unknown
      >;
    };
    await page.goto(url);
    const first = await run();
    expect(first.error, String(first.error)).toBeUndefined();
    expect(first).toMatchObject({ origin: site.origin, stored: 1, tokens: 1 });
    await page.reload();
    const second = await run();
    expect(second).toMatchObject({ skipped: "already reported in this round" });
    expect(errors).toEqual([]);
    const status = await admin(`${collector.url}/v1/rounds/${round}/status`);
    expect(status).toMatchObject({ accepted: 1, duplicates: 0, rejected: {} });
    expect((status.perView as number[])[first.view as number]).toBe(1);
    await page.close();
  }, 180_000);
});
