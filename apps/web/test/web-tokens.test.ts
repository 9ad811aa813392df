import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { browserSuite, pageResult, SWITCHES_ROUND } from "./browser-suite.js";
import { chromiumOrSkip, collectPageErrors } from "./browser-support.js";
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

describe.skipIf(missing !== undefined)("protected-mode reports from a page in headless Chromium", () => {
  const suite = browserSuite({
    pageDir: PAGE_DIR,
    name: "web-tokens",
    token: TOKEN,
    startCollector: async (dir, [origin]) => {
      const protectedMode = ["--require-tokens", "--attester", "test"];
      const cli = await serveCollectorCli(join(dir, "collector.duckdb"), origin!, TOKEN, protectedMode);
      return { url: cli.url, stop: () => void cli.child.kill("SIGTERM") };
    },
  });

  it("obtains a token, reports once across origins, and a reload spends no second token", async () => {
    const { collector, admin } = suite;
    const site = suite.sites[0]!;
    const created = await admin(`${collector.url}/v1/rounds`, "POST", SWITCHES_ROUND);
    const round = created.round as string;
    const page = await suite.context.newPage();
    const errors: string[] = [];
    collectPageErrors(page, errors);
    const url = `${site.origin}/?${new URLSearchParams({ collector: collector.url, round })}`;
    const run = () => pageResult(page);
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
