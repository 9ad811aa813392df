import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createReport } from "@calm-ldp/client";
import { seededRng } from "@calm-ldp/random";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type {
  CampaignSummary,
  MarginalAnswer,
  RoundPlan,
  RoundStatus,
  RoundSummary,
  SeriesAnswer,
} from "../src/console-page/api.js";
import type { RunningCollector } from "../src/start-collector.js";
import {
  chromiumMissing,
  launchBrowser,
  type SeededCampaign,
  seedCampaign,
  startConsoleCollector,
  watchErrors,
} from "./console-support.js";
import { allOnesReport, call, createRound, packageDir, TOKEN, UNARY_ROUND } from "./support.js";

/**
 * The operator console in headless Chromium against a real collector (in process,
 * DuckDB) holding a campaign of 3 rounds of simulated users (with refused batches)
 * and a round with no reports: every page renders without a console error, the
 * numbers on the page are the API's, the time series has 3 points with intervals
 * per cell, closing asks first, and the error states (no token, wrong token,
 * storage down) say what is wrong. Screenshots: test-output/console-screenshots/.
 */

const SHOTS = join(packageDir, "test-output", "console-screenshots");
const missing = chromiumMissing();
if (missing && process.env.CI)
  throw new Error(`console browser test: Chromium is required in CI: ${missing}`);
if (missing) console.warn(`\n!!! SKIPPING test/console-browser.test.ts: ${missing} !!!\n`);

/** How the console prints integers and fractions (dom.ts `count` and `fraction`). */
const count = (n: number) => n.toLocaleString("en-US");
const fraction = (x: number) => x.toFixed(4);

describe.skipIf(missing !== undefined)("operator console in headless Chromium", () => {
  let dir: string;
  let collector: RunningCollector;
  let outage: { down: boolean };
  let browser: Browser;
  let seeded: SeededCampaign;
  let empty: string;
  let page: Page;
  let problems: string[];
  const api = async <T>(path: string): Promise<T> => {
    const answer = await call(`${collector.url}${path}`, "GET");
    expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).toBe(200);
    return answer.body as T;
  };
  const field = (scope: string, name: string) =>
    page.locator(`${scope} [data-field="${name}"]`).textContent();
  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  const open = async (hash: string) => {
    await page.goto(`${collector.url}/console/${hash}`);
    await page.waitForSelector('main[data-state="ready"]');
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "calm-console-"));
    mkdirSync(SHOTS, { recursive: true });
    // The per-report unary check on (as in protected mode), so a unary round can show dropped reports.
    ({ collector, outage } = await startConsoleCollector(dir, { unaryReportCheck: 0.01 }));
    seeded = await seedCampaign(collector.url, 3, 1500);
    const created = await call(`${collector.url}/v1/rounds`, "POST", {
      schema: {
        attributes: [
          { name: "a", cardinality: 2 },
          { name: "b", labels: ["x", "y", "z"] },
        ],
      },
      eps: 1,
      k: 2,
      n: 1000,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    empty = created.body.round as string;
    browser = await launchBrowser();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(15_000);
    problems = watchErrors(page);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await collector?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("asks for the token first, then lists the campaign and the round outside it as the API does", async () => {
    await open("#/");
    await expect(page.locator("main .notice.empty").textContent()).resolves.toContain("No admin token");
    // The badge is set when /readyz answers (a storage write probe): wait for that answer.
    await page.waitForSelector('#health[data-state="ok"]');
    await expect(page.locator("#health").textContent()).resolves.toBe("storage: duckdb ok");
    await page.fill("#token", TOKEN);
    await page.click("#token-form button[type=submit]");
    await page.waitForSelector("table.campaigns");
    const { campaigns } = await api<{ campaigns: CampaignSummary[] }>("/v1/campaigns");
    expect(campaigns).toHaveLength(1);
    const row = `tr[data-campaign="${seeded.campaign}"]`;
    expect(await field(row, "rounds")).toBe("3");
    expect(await field(row, "openRound")).toBe(seeded.rounds[2]);
    expect(await field(row, "eps")).toBe(String(campaigns[0].eps));
    const standalone = `tr[data-round="${empty}"]`;
    expect(await field(standalone, "accepted")).toBe("0");
    expect(await field(standalone, "state")).toBe("open");
    expect(await field(standalone, "balance")).toBe(" 0–0"); // no reports in any view
    await shot("overview");
    expect(problems).toEqual([]);
  });

  it("a campaign: every round's counters, and a time series of 3 points with intervals per cell", async () => {
    await open(`#/campaigns/${seeded.campaign}`);
    for (const [index, round] of seeded.rounds.entries()) {
      const status = await api<RoundStatus>(`/v1/rounds/${round}/status`);
      const row = `tr[data-round="${round}"]`;
      expect(await field(row, "index")).toBe(String(index));
      expect(await field(row, "accepted")).toBe(count(status.accepted));
      expect(await field(row, "duplicates")).toBe(count(status.duplicates));
      expect(await field(row, "idsHeld")).toBe(count(status.idsHeld));
      expect(await field(row, "state")).toBe(status.closedAt === null ? "open" : "closed");
      const reasons = Object.entries(status.rejected as Record<string, number>).sort(([a], [b]) =>
        a < b ? -1 : 1,
      );
      expect(await field(row, "refused")).toBe(reasons.map(([r, n]) => `${r} ${count(n)}`).join(", "));
      expect(reasons.map(([r]) => r)).toEqual(
        index < 2 ? ["round-closed", "unknown-view"] : ["unknown-view"],
      );
      const bars = page.locator(`${row} [data-field="balance"] svg`);
      expect(await bars.getAttribute("aria-label")).toBe(`reports per view: ${status.perView.join(", ")}`);
    }
    await page.waitForSelector('#series[data-state="ready"]');
    const series = await api<SeriesAnswer>(
      `/v1/campaigns/${seeded.campaign}/marginals?attrs=browser,os&interval=0.95`,
    );
    expect(series.series).toHaveLength(3);
    const lines = page.locator("#series svg g.line");
    expect(await lines.count()).toBe(9); // 3 x 3 cells
    for (let c = 0; c < 9; c++) {
      expect(await lines.nth(c).locator("circle.point").count()).toBe(3);
      expect(await lines.nth(c).locator("line.interval").count()).toBe(3);
    }
    for (const point of series.series) {
      for (let c = 0; c < 9; c++) {
        const text = await page
          .locator(`.series-table tr[data-index="${point.index}"] [data-field="cell-${c}"]`)
          .textContent();
        expect(text).toBe(
          `${fraction(point.cells[c])} [${fraction(point.lower![c]!)}, ${fraction(point.upper![c]!)}]`,
        );
      }
    }
    // Another marginal: dark mode alone (its share grows by 0.1 a round in the simulated data).
    await page.uncheck('#series-title ~ form input[value="0"]');
    await page.uncheck('#series-title ~ form input[value="1"]');
    await page.check('#series-title ~ form input[value="2"]');
    await page.click("#series-title ~ form button[type=submit]");
    await page.waitForSelector('#series[data-state="ready"] g.line[data-label="yes"]');
    const dark = await api<SeriesAnswer>(
      `/v1/campaigns/${seeded.campaign}/marginals?attrs=dark-mode&interval=0.95`,
    );
    expect(await page.locator("#series svg g.line").count()).toBe(2);
    for (const label of ["no", "yes"]) {
      expect(await page.locator(`#series g.line[data-label="${label}"] circle.point`).count()).toBe(3);
      expect(await page.locator(`#series g.line[data-label="${label}"] line.interval`).count()).toBe(3);
    }
    for (const point of dark.series)
      expect(
        await page
          .locator(`.series-table tr[data-index="${point.index}"] [data-field="cell-1"]`)
          .textContent(),
      ).toBe(`${fraction(point.cells[1]!)} [${fraction(point.lower![1]!)}, ${fraction(point.upper![1]!)}]`);
    const snippet = await page.locator("#snippet").textContent();
    expect(snippet).toContain(`fetchCampaignRound(url, "${seeded.campaign}")`);
    expect(snippet).toContain(`createReporter({`);
    expect(snippet).toContain(`${collector.url}/v1/campaigns/${seeded.campaign}/current`);
    await shot("campaign");
    expect(problems).toEqual([]);
  });

  it("a round: status, plan and a heatmap with error bars equal to the API's", async () => {
    const round = seeded.rounds[0]!;
    await open(`#/rounds/${round}?campaign=${seeded.campaign}`);
    const status = await api<RoundStatus>(`/v1/rounds/${round}/status`);
    const { plan } = await api<RoundPlan>(`/v1/rounds/${round}/plan`);
    expect(await field(".facts", "accepted")).toBe(count(status.accepted));
    expect(await field(".facts", "idsHeld")).toBe(count(status.idsHeld));
    expect(await field(".facts", "closedAt")).toBe(
      `${status.closedAt!.slice(0, 10)} ${status.closedAt!.slice(11, 19)}Z`,
    );
    expect(await field(".facts", "ids")).toContain(
      `${status.idsDropAfter!.slice(0, 10)} ${status.idsDropAfter!.slice(11, 19)}Z`,
    );
    for (const name of ["eps", "k", "l", "m"] as const)
      expect(await field(".plan .facts", name)).toBe(String(plan[name]));
    expect(await page.locator("table.views tbody tr").count()).toBe(plan.m);
    for (const [v, view] of plan.views.entries())
      expect(await field(`table.views tr[data-view="${v}"]`, "oracle")).toBe(view.oracle.toUpperCase());
    expect(await page.locator("#close-round").count()).toBe(0); // closed: no close button
    await page.waitForSelector('#marginal[data-state="ready"]');
    const answer = await api<MarginalAnswer>(
      `/v1/rounds/${round}/marginals?attrs=browser,os&estimator=calm&interval=0.95`,
    );
    const cells = page.locator("#marginal svg g.cell");
    expect(await cells.count()).toBe(9);
    expect(await page.locator("#marginal svg line.error-bar").count()).toBe(9);
    for (let c = 0; c < 9; c++) {
      expect(await cells.nth(c).locator("text.value").textContent()).toBe(fraction(answer.cells[c]));
      const tr = `.marginal-table tr[data-cell="${c}"]`;
      expect(await field(tr, "lower")).toBe(fraction(answer.lower![c]!));
      expect(await field(tr, "upper")).toBe(fraction(answer.upper![c]!));
    }
    await shot("round");
    // calm-plus: no interval, no error bars.
    await page.selectOption("#estimator", "calm-plus");
    await page.click("#marginal-title ~ form button[type=submit]");
    await page.waitForSelector('#marginal[data-state="ready"] .marginal-table');
    const plus = await api<MarginalAnswer>(
      `/v1/rounds/${round}/marginals?attrs=browser,os&estimator=calm-plus`,
    );
    expect(await page.locator("#marginal svg line.error-bar").count()).toBe(0);
    expect(await field('.marginal-table tr[data-cell="0"]', "estimate")).toBe(fraction(plus.cells[0]));
    expect(problems).toEqual([]);
  });

  it("closing a round asks first; Cancel keeps it open, confirming closes it", async () => {
    const round = seeded.rounds[2]!;
    await open(`#/rounds/${round}?campaign=${seeded.campaign}`);
    await page.click("#close-round");
    await expect(page.locator("#close-question").textContent()).resolves.toContain("Close this round?");
    await shot("close-confirmation");
    await page.click("#cancel-close");
    expect((await api<RoundStatus>(`/v1/rounds/${round}/status`)).closedAt).toBeNull();
    await page.click("#close-round");
    await page.click("#confirm-close");
    await page.waitForFunction(
      () => document.querySelector('[data-field="state"]')?.textContent === "closed",
    );
    expect((await api<RoundStatus>(`/v1/rounds/${round}/status`)).closedAt).not.toBeNull();
    expect(problems).toEqual([]);
  });

  it("a round with no reports says so instead of a heatmap", async () => {
    await open(`#/rounds/${empty}`);
    await expect(page.locator("#marginal-title + .notice").textContent()).resolves.toContain(
      "No reports yet",
    );
    expect(await page.locator("#snippet").textContent()).toContain(`fetchPlan(url, "${empty}")`);
    await shot("empty-round");
    expect(problems).toEqual([]);
  });

  it("a unary round: dropped reports in all and per reason and view, and its flags, as the API says", async () => {
    const { round, plan } = await createRound(collector.url, UNARY_ROUND);
    const last = plan.views.length - 1;
    // Seeded honest reports, 50 of every view and 200 more of view 0 (a view-balance flag; every
    // view has reports, so the marginal has its interval), and crafted all-ones reports.
    const rng = seededRng(31);
    const views = [...plan.views.keys(), ...new Array<number>(4).fill(0)];
    const honest = views.flatMap((view) =>
      Array.from({ length: 50 }, () => createReport(plan, [1, 2, 3], { view, rng })),
    );
    const crafted = [allOnesReport(plan, 0), allOnesReport(plan, last), allOnesReport(plan, last)];
    const ack = await call(`${collector.url}/v1/rounds/${round}/reports`, "POST", {
      round,
      reports: [...honest, ...crafted],
    });
    expect(ack.status, JSON.stringify(ack.body)).toBe(200);
    const status = await api<RoundStatus>(`/v1/rounds/${round}/status`);
    expect(status.unaryDropped!.reports).toBeGreaterThanOrEqual(3);
    expect(status.flags.some((flag) => flag.kind === "view-balance")).toBe(true);
    await open(`#/rounds/${round}`);
    expect(await field(".defences", "unaryDropped")).toBe(
      `${count(status.unaryDropped!.reports)} (honest reports dropped at most 1%)`,
    );
    const dropped = status.dropped!["unary-count"]!;
    const droppedViews = [...dropped.keys()].filter((v) => dropped[v]! > 0);
    expect(await page.locator("table.dropped tbody tr").count()).toBe(droppedViews.length);
    for (const v of droppedViews)
      expect(await field(`table.dropped tr[data-reason="unary-count"][data-view="${v}"]`, "reports")).toBe(
        count(dropped[v]!),
      );
    expect(await field(`table.dropped tr[data-view="${last}"]`, "reports")).toBe(count(dropped[last]!));
    const kinds = await page
      .locator("ul.flags li")
      .evaluateAll((items) => items.map((li) => li.dataset.flag));
    expect(kinds).toEqual(status.flags.map((flag) => flag.kind));
    expect(await page.locator('ul.flags li[data-flag="view-balance"]').first().textContent()).toContain(
      "view 0:",
    );
    await shot("unary-round");
    // The page shows the API's numbers, not its own: a tampered answer shows on the page.
    await page.route("**/v1/rounds/*/status", async (route) => {
      const answer = await route.fetch();
      const body = (await answer.json()) as RoundStatus;
      await route.fulfill({
        response: answer,
        json: { ...body, unaryDropped: { ...body.unaryDropped!, reports: body.unaryDropped!.reports + 5 } },
      });
    });
    try {
      await page.goto("about:blank"); // the same hash again would not reload the page
      await open(`#/rounds/${round}`);
      expect(await field(".defences", "unaryDropped")).toContain(count(status.unaryDropped!.reports + 5));
    } finally {
      await page.unroute("**/v1/rounds/*/status");
    }
    expect(problems).toEqual([]);
  });

  it("the comparison catches a page showing other numbers (an answer tampered with on its way to the page)", async () => {
    const round = seeded.rounds[1]!;
    const status = await api<RoundStatus>(`/v1/rounds/${round}/status`);
    await page.route("**/v1/rounds?campaign=*", async (route) => {
      const answer = await route.fetch();
      const body = (await answer.json()) as { rounds: RoundSummary[] };
      const rounds = body.rounds.map((r) => (r.round === round ? { ...r, accepted: r.accepted + 1 } : r));
      await route.fulfill({ response: answer, json: { ...body, rounds } });
    });
    try {
      await open(`#/campaigns/${seeded.campaign}`);
      expect(await field(`tr[data-round="${round}"]`, "accepted")).not.toBe(count(status.accepted));
      expect(await field(`tr[data-round="${round}"]`, "accepted")).toBe(count(status.accepted + 1));
    } finally {
      await page.unroute("**/v1/rounds?campaign=*");
    }
  });

  it("error states: a wrong token, and the storage down (then back)", async () => {
    const errorPage = await (await browser.newContext({ viewport: { width: 1280, height: 600 } })).newPage();
    const seen = watchErrors(errorPage);
    await errorPage.goto(`${collector.url}/console/#/`);
    await errorPage.fill("#token", "not-the-admin-token-at-all");
    await errorPage.click("#token-form button[type=submit]");
    await errorPage.waitForSelector("main .notice.error");
    expect(await errorPage.locator("main .notice.error").textContent()).toContain("Admin token refused");
    await errorPage.fill("#token", TOKEN);
    await errorPage.click("#token-form button[type=submit]");
    await errorPage.waitForSelector("table.campaigns");
    outage.down = true;
    try {
      await errorPage.goto(`${collector.url}/console/#/campaigns/${seeded.campaign}`);
      await errorPage.waitForSelector('main[data-state="ready"] .notice.error');
      expect(await errorPage.locator("main .notice.error").textContent()).toContain("Storage unavailable");
      await errorPage.waitForSelector('#health[data-state="down"]');
      expect(await errorPage.locator("#health").textContent()).toContain("simulated outage");
      await errorPage.screenshot({ path: join(SHOTS, "storage-down.png") });
    } finally {
      outage.down = false;
    }
    await errorPage.reload();
    await errorPage.waitForSelector("table.rounds");
    // The badge reads readiness (`/readyz`), so it clears once the database answers again.
    await errorPage.waitForSelector('#health[data-state="ok"]');
    expect(await errorPage.locator("#health").textContent()).toBe("storage: duckdb ok");
    // The only console lines: the browser's own notes on the refused requests (403, 503).
    expect(
      seen.filter(
        (line) => !/Failed to load resource: the server responded with a status of (403|503)/.test(line),
      ),
    ).toEqual([]);
    expect(seen.length).toBeGreaterThan(0);
  });
});
