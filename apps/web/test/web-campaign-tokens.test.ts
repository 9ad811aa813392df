import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { browserSuite, pageResult, SWITCHES_ROUND } from "./browser-suite.js";
import { chromiumOrSkip, collectPageErrors } from "./browser-support.js";
import { serveCollectorCli } from "./cli-process.js";

/**
 * Protected campaigns in a real browser: Debian's Chromium loads a page (origin A)
 * holding @calm-ldp/client and its `tokens` subpath; the collector (origin B) is
 * `calm-ldp collector serve --require-tokens --attester test --allow-origin A`.
 * The page keeps a memoizing reporter (`createReporter`) and a token wallet
 * (`openTokenWallet`) in IndexedDB: one campaign token per device (it fixes the
 * view), one round token per round (paid by the campaign token, signed with the
 * round's key of that view). Checked: the view is the same in every round and
 * reload; a reload in a round already reported asks for no token and sends
 * nothing; the next round costs exactly one round token; a report claiming
 * another view with the page's token is refused 403 `token-view-mismatch` and
 * counts nothing (the token stays good for the honest report). Token requests
 * are counted twice: in the page (Playwright sees every request) and at the
 * issuer (the collector's `/metrics`).
 */

const PAGE_DIR = fileURLToPath(new URL("./campaign-token-page/", import.meta.url));
const TOKEN = "web-campaign-tokens-admin-0123456789";
const RECORD = "[1,0,1,1]";
/** The suites' four switches, planned for 10,000 users: six pair views, so a view is a real choice. */
const CAMPAIGN = { ...SWITCHES_ROUND, n: 10_000 };

const missing = chromiumOrSkip(
  "web campaign tokens e2e",
  "the protected-campaign browser test (apps/web/test/web-campaign-tokens.test.ts)",
);

type PageResult = {
  round: string;
  index: number;
  views: number;
  view: number;
  wallet: "new" | "restored" | "corrupt";
  report?: { id: string; view: number };
  flush?: { sent: number; pending: number; refused: unknown[] };
  ledger?: { view: number; rounds: number; memoized: number; eps: number };
  skipped?: string;
  forged?: { claimed: number; status?: number; reason?: string; accepted?: unknown };
  error?: string;
};

/** Requests the page sent to the collector (no preflights): "METHOD /path?query" with ids as `:round` / `:campaign`. */
function watchCollector(page: Page, collector: string, names: Map<string, string>): string[] {
  const seen: string[] = [];
  page.on("request", (request) => {
    if (!request.url().startsWith(collector) || request.method() === "OPTIONS") return;
    let path = request.url().slice(collector.length);
    for (const [id, name] of names) path = path.replaceAll(id, name);
    seen.push(`${request.method()} ${path}`);
  });
  return seen;
}

/** The collector's `calm_collector_http_requests_total` for POSTs to `route`, by status. */
async function postsAnswered(collector: string, route: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${collector}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const line of text.split("\n")) {
    if (!line.startsWith("calm_collector_http_requests_total{")) continue;
    const labels = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (labels.route === route && labels.method === "POST")
      counts[labels.status!] = Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return counts;
}

describe.skipIf(missing !== undefined)("a protected campaign from a page in headless Chromium", () => {
  const suite = browserSuite({
    pageDir: PAGE_DIR,
    name: "web-campaign-tokens",
    token: TOKEN,
    startCollector: async (dir, [origin]) => {
      const protectedMode = ["--require-tokens", "--attester", "test"];
      const cli = await serveCollectorCli(join(dir, "collector.duckdb"), origin!, TOKEN, protectedMode);
      return { url: cli.url, stop: () => void cli.child.kill("SIGTERM") };
    },
  });

  it("one campaign token, one round token per round, the same view throughout; a forged view is refused", async () => {
    const { collector, admin } = suite;
    const site = suite.sites[0]!;
    const created = await admin(`${collector.url}/v1/campaigns`, "POST", CAMPAIGN);
    const campaign = created.campaign as string;
    const names = new Map([[campaign, ":campaign"]]);
    const page = await suite.context.newPage();
    const errors: string[] = [];
    collectPageErrors(page, errors);
    const requests = watchCollector(page, collector.url, names);
    const query = new URLSearchParams({ collector: collector.url, campaign, record: RECORD });
    let view = -1;
    /** A round's counts at the collector: accepted, duplicates, reports in the page's view and in the others. */
    const counts = async (round: string) => {
      const status = await admin(`${collector.url}/v1/rounds/${round}/status`);
      const perView = status.perView as number[];
      const inView = perView[view]!;
      const elsewhere = perView.reduce((a, b) => a + b, 0) - inView;
      return { accepted: status.accepted, duplicates: status.duplicates, inView, elsewhere };
    };
    const once = { accepted: 1, duplicates: 0, inView: 1, elsewhere: 0 };
    /** One page load (`go` navigates or reloads): its result and the collector requests it made. */
    const load = async (go: () => Promise<unknown>) => {
      requests.length = 0;
      await go();
      const result = await pageResult<PageResult>(page, 30_000);
      expect(result.error, result.error).toBeUndefined();
      names.set(result.round, `:r${result.index}`);
      return { result, sent: requests.map((r) => r.replaceAll(result.round, `:r${result.index}`)) };
    };
    const url = `${site.origin}/?${query}`;
    const lookups = ["GET /v1/campaigns/:campaign/current"];

    // Round 0: a campaign token (attested), then the round's token of the campaign view; one report.
    const first = await load(() => page.goto(url));
    view = first.result.view;
    expect(first.result.views).toBe(6);
    expect(first.result).toMatchObject({ index: 0, wallet: "new", report: { view }, flush: { sent: 1 } });
    expect(first.sent).toEqual([
      ...lookups,
      "GET /v1/campaigns/:campaign/token-key",
      "POST /v1/campaigns/:campaign/tokens",
      `GET /v1/rounds/:r0/token-key?view=${view}`,
      "POST /v1/rounds/:r0/tokens",
      "POST /v1/rounds/:r0/reports",
    ]);
    const r0 = first.result.round;
    expect(await counts(r0)).toEqual(once);

    // A reload in round 0: both tokens come from IndexedDB, the reporter refuses a second report.
    const reload = await load(() => page.reload());
    expect(reload.result).toMatchObject({ round: r0, view, wallet: "restored" });
    expect(reload.result.skipped).toBe("already reported in this round");
    expect(reload.sent).toEqual(lookups);
    expect(await counts(r0)).toEqual(once);

    // Round 1 (opened by the admin): one new round token, the same view, the memoized response.
    const opened = await admin(`${collector.url}/v1/campaigns/${campaign}/rounds`, "POST", {});
    expect(opened.index).toBe(1);
    const second = await load(() => page.reload());
    expect(second.result).toMatchObject({ index: 1, view, wallet: "restored", report: { view } });
    expect(second.result.flush).toMatchObject({ sent: 1, pending: 0, refused: [] });
    expect(second.result.ledger).toMatchObject({ view, rounds: 2, memoized: 1 });
    expect(second.sent).toEqual([
      ...lookups,
      `GET /v1/rounds/:r1/token-key?view=${view}`,
      "POST /v1/rounds/:r1/tokens",
      "POST /v1/rounds/:r1/reports",
    ]);
    const r1 = second.result.round;
    expect(await counts(r1)).toEqual(once);

    // Round 2: the page claims another view with its round token -> 403, nothing counted.
    await admin(`${collector.url}/v1/campaigns/${campaign}/rounds`, "POST", {});
    const forge = await load(() => page.goto(`${url}&forge=1`));
    const claimed = (view + 1) % forge.result.views;
    expect(forge.result).toMatchObject({ index: 2, view });
    expect(forge.result.forged).toEqual({ claimed, status: 403, reason: "token-view-mismatch" });
    expect(forge.sent).toEqual([
      ...lookups,
      `GET /v1/rounds/:r2/token-key?view=${view}`,
      "POST /v1/rounds/:r2/tokens",
      "POST /v1/rounds/:r2/reports",
    ]);
    const r2 = forge.result.round;
    expect(await counts(r2)).toEqual({ accepted: 0, duplicates: 0, inView: 0, elsewhere: 0 });
    // The refusal spent nothing: the honest report spends the same kept token, no new request.
    const honest = await load(() => page.goto(url));
    expect(honest.result).toMatchObject({ round: r2, view, report: { view }, flush: { sent: 1 } });
    expect(honest.sent).toEqual([...lookups, "POST /v1/rounds/:r2/reports"]);
    for (const round of [r0, r1, r2]) expect(await counts(round)).toEqual(once);

    // The issuer's count agrees: one campaign token, three round tokens, no refusal.
    expect(await postsAnswered(collector.url, "/v1/campaigns/:id/tokens")).toEqual({ "200": 1 });
    expect(await postsAnswered(collector.url, "/v1/rounds/:id/tokens")).toEqual({ "200": 3 });
    expect(await postsAnswered(collector.url, "/v1/rounds/:id/reports")).toEqual({ "200": 3, "403": 1 });
    // The one console error: Chromium logging the forged report's 403.
    expect(errors).toEqual([
      "console error: Failed to load resource: the server responded with a status of 403 (Forbidden)",
    ]);
    await page.close();
  }, 120_000);
});
