import { mkdtempSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { adminRequest, bundlePage, launchChromium, serveTestPage } from "./browser-support.js";

/** A collector a browser suite runs: its URL, and how to stop it. */
export interface SuiteCollector {
  readonly url: string;
  stop(): Promise<void> | void;
}

/** What a browser suite's tests use once its `beforeAll` ran. */
export interface BrowserSuite<C extends SuiteCollector> {
  /** The suite's temporary directory (removed after it). */
  readonly dir: string;
  /** The test page, served from `sites` origins of their own (loopback ports). */
  sites: { server: Server; origin: string }[];
  collector: C;
  context: BrowserContext;
  /** A JSON request with the suite's admin token (see `adminRequest`). */
  admin(url: string, method?: string, body?: unknown): Promise<Record<string, unknown>>;
}

/**
 * The set-up every headless-Chromium suite repeats, for one `describe` block:
 * a temporary directory; the page in `pageDir` bundled (`onBundle` sees the
 * script) and served from `sites` origins; a collector from
 * `startCollector(dir, origins)` (its database in `dir`; the origins are the
 * sites'); Chromium with its profile in `dir`. After the suite all of them are
 * closed, the collector stopped and the directory removed.
 */
export function browserSuite<C extends SuiteCollector>(options: {
  pageDir: string;
  name: string;
  token: string;
  sites?: number;
  startCollector: (dir: string, origins: string[]) => Promise<C>;
  onBundle?: (script: string) => void;
}): BrowserSuite<C> {
  const suite = {
    dir: mkdtempSync(join(tmpdir(), `calm-${options.name}-`)),
    sites: [],
    admin: (url: string, method = "GET", body?: unknown) => adminRequest(options.token, url, method, body),
  } as unknown as BrowserSuite<C>;
  beforeAll(async () => {
    const script = await bundlePage(options.pageDir);
    options.onBundle?.(script);
    for (let i = 0; i < (options.sites ?? 1); i++)
      suite.sites.push(await serveTestPage(options.pageDir, script));
    suite.collector = await options.startCollector(
      suite.dir,
      suite.sites.map((site) => site.origin),
    );
    suite.context = await launchChromium(join(suite.dir, "profile"));
  }, 180_000);
  afterAll(async () => {
    await suite.context?.close();
    await suite.collector?.stop();
    await Promise.all(suite.sites.map((site) => new Promise((resolve) => site.server.close(resolve))));
    rmSync(suite.dir, { recursive: true, force: true });
  });
  return suite;
}

/** The round body the browser suites create: four on/off attributes, eps 1, k 2, 1000 users. */
export const SWITCHES_ROUND = {
  schema: { attributes: Array.from({ length: 4 }, (_, i) => ({ name: `f${i}`, labels: ["off", "on"] })) },
  eps: 1,
  k: 2,
  n: 1000,
};

/** The result a test page leaves in `window.result`, once it marks `body[data-done='1']` (waits up to `timeoutMs`). */
export async function pageResult<T = Record<string, unknown>>(page: Page, timeoutMs = 60_000): Promise<T> {
  await page.waitForSelector("body[data-done='1']", { timeout: timeoutMs });
  return (await page.evaluate(() => (window as unknown as { result: unknown }).result)) as T;
}
