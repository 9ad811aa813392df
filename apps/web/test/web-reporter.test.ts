import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { startCollector } from "@calm-ldp/collector";
import { openDuckDbStorage } from "@calm-ldp/collector/duckdb";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { browserSuite, pageResult, SWITCHES_ROUND } from "./browser-suite.js";
import { chromiumOrSkip, collectPageErrors } from "./browser-support.js";

/**
 * A real browser reporting in a campaign: Debian's Chromium (playwright-core)
 * loads a static page from origin A (a loopback port) holding @calm-ldp/client
 * bundled for the browser; the page asks the collector on origin B (another port,
 * CORS allowing A) for the campaign's open round, reports through `createReporter`
 * with `indexedDbStorage`, and shows the ledger. Three rounds, the admin opening
 * the next one and the page reloading in between: the same group and the same
 * memoized response come back from IndexedDB, the ledger on the page stays at one
 * plan eps, and the collector counts one report per round.
 */

const PAGE_DIR = fileURLToPath(new URL("./reporter-page/", import.meta.url));
const TOKEN = "web-reporter-admin-token-0123456789";

const missing = chromiumOrSkip(
  "web reporter e2e",
  "the reporter's browser test (apps/web/test/web-reporter.test.ts)",
);

type PageResult = {
  round: string;
  index: number;
  report: { id: string; view: number; value?: number; bits?: string };
  flush: { sent: number; pending: number; refused: unknown[] };
  ledger: { eps: number; memoized: number; rounds: number; view: number; start: string; planEps: number };
  error?: string;
};

describe.skipIf(missing !== undefined)(
  "a persistent reporter in headless Chromium, cross-origin, 3 rounds with reloads",
  () => {
    let page: Page;
    const problems: string[] = [];
    const suite = browserSuite({
      pageDir: PAGE_DIR,
      name: "web-reporter",
      token: TOKEN,
      onBundle: (script) =>
        console.log(
          `page.js (client + page script, minified): ${script.length} bytes, ${gzipSync(script).length} gzipped`,
        ),
      startCollector: async (dir, origins) => {
        const collector = await startCollector({
          storage: await openDuckDbStorage(join(dir, "collector.duckdb")),
          adminToken: TOKEN,
          allowOrigins: origins,
        });
        return { url: collector.url, stop: () => collector.close() };
      },
    });

    beforeAll(async () => {
      page = await suite.context.newPage();
      collectPageErrors(page, problems);
    });

    it("same group and memoized response after reloads (IndexedDB), ledger on the page, one report counted per round", async () => {
      const { collector, admin } = suite;
      const site = suite.sites[0]!;
      expect(site.origin).not.toBe(collector.url); // two origins (different ports)
      const created = await admin(`${collector.url}/v1/campaigns`, "POST", SWITCHES_ROUND);
      const campaign = created.campaign as string;
      const query = new URLSearchParams({ collector: collector.url, campaign, record: "[1,0,1,1]" });
      const results: PageResult[] = [];
      for (let t = 0; t < 3; t++) {
        if (t === 0) await page.goto(`${site.origin}/?${query}`);
        else {
          const next = await admin(`${collector.url}/v1/campaigns/${campaign}/rounds`, "POST", {});
          expect(next.index).toBe(t);
          await page.reload();
        }
        const result = await pageResult<PageResult>(page, 30_000);
        expect(result.error, result.error).toBeUndefined();
        results.push(result);
        expect(result.index).toBe(t);
        expect(result.flush).toMatchObject({ sent: 1, pending: 0, refused: [] });
        const shown = await page.textContent("#ledger");
        expect(shown).toBe(
          `eps spent 1 of 5 (1 value, ${t + 1} rounds, group ${results[0]!.report.view}, state ${t === 0 ? "new" : "restored"})`,
        );
      }
      const [first, ...later] = results;
      for (const r of later) {
        expect(r.report.view).toBe(first!.report.view);
        expect([r.report.value, r.report.bits]).toEqual([first!.report.value, first!.report.bits]);
        expect(r.report.id).not.toBe(first!.report.id);
        expect(r.ledger).toMatchObject({ eps: 1, memoized: 1, start: "restored" });
      }
      // The counts arrived: one report in each round, in the group the page kept.
      for (const r of results) {
        const status = await admin(`${collector.url}/v1/rounds/${r.round}/status`);
        expect(status.accepted).toBe(1);
        expect((status.perView as number[])[first!.report.view]).toBe(1);
      }
      const series = await admin(`${collector.url}/v1/campaigns/${campaign}/marginals?attrs=f0,f1`);
      expect((series.series as { n: number }[]).map((p) => p.n)).toEqual([1, 1, 1]);
      expect(problems).toEqual([]);
    }, 120_000);
  },
);
