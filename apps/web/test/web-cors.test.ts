import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { browserSuite, pageResult, SWITCHES_ROUND } from "./browser-suite.js";
import { chromiumOrSkip, collectPageErrors } from "./browser-support.js";
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

describe.skipIf(missing !== undefined)("cross-origin reports from a page in headless Chromium", () => {
  // Sites: the allowed origin A, then origin C (not allowed); the collector (origin B) allows A only.
  const suite = browserSuite({
    pageDir: PAGE_DIR,
    name: "web-cors",
    token: TOKEN,
    sites: 2,
    startCollector: async (dir, [allowed]) => {
      const cli = await serveCollectorCli(join(dir, "collector.duckdb"), allowed!, TOKEN);
      return { url: cli.url, stop: () => void cli.child.kill("SIGTERM") };
    },
  });

  /** Open the page from `origin`; resolves with its result and the browser's console errors. */
  async function runPage(origin: string, round: string) {
    const page = await suite.context.newPage();
    const errors: string[] = [];
    collectPageErrors(page, errors);
    const query = new URLSearchParams({ collector: suite.collector.url, round, n: String(N) });
    await page.goto(`${origin}/?${query}`);
    const result = await pageResult(page);
    await page.close();
    return { result, errors };
  }

  it("a page on the allowed origin A posts reports to the collector on origin B; they are counted", async () => {
    const [allowed, other] = [suite.sites[0]!, suite.sites[1]!];
    const { collector, admin } = suite;
    expect(new URL(allowed.origin).port).not.toBe(new URL(collector.url).port);
    const created = await admin(`${collector.url}/v1/rounds`, "POST", SWITCHES_ROUND);
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
