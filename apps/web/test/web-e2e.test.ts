import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HARNESS_METHOD_IDS, type MethodRun, type SummaryRow } from "@calm-ldp/experiments";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webRoot } from "../src/server/paths.js";
import { type ServedPage, servePage } from "../src/server/serve-page.js";
import { chromiumOrSkip, collectPageErrors, launchChromium } from "./browser-support.js";
import { runPageCommand } from "./cli-process.js";

/**
 * End to end in a real browser: Debian's Chromium (never a downloaded one), driven
 * by playwright-core, loads the page from `servePage` on a loopback port, runs a
 * small seeded configuration, and the rendered SSE chart, summary table, CALM plan
 * and heatmaps must show the numbers `pnpm calm-ldp run` computes with the command
 * the page displays. A screenshot goes to apps/web/test-output/web-demo.png.
 */

const OUTPUT = join(webRoot(), "test-output");

const missing = chromiumOrSkip("web e2e", "the web demo's end-to-end test (apps/web/test/web-e2e.test.ts)");

/** Relative agreement to ~1e-9 (the chart's aria labels print 12 significant digits). */
const agree = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));

describe.skipIf(missing !== undefined)("web demo in headless Chromium", () => {
  let served: ServedPage;
  let context: BrowserContext;
  let page: Page;
  let userDataDir: string;
  const problems: string[] = [];

  beforeAll(async () => {
    served = await servePage({ port: 0 }); // builds apps/web/dist-web when missing or stale
    userDataDir = mkdtempSync(join(tmpdir(), "calm-chromium-"));
    context = await launchChromium(userDataDir, { viewport: { width: 1366, height: 768 } });
    page = await context.newPage();
    collectPageErrors(page, problems);
    await page.goto(served.server.url);
  }, 300_000); // builds the page first when stale: minutes on a loaded 2-core machine

  afterAll(async () => {
    await context?.close();
    await served?.server.close();
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  });

  it("offers every harness method and labels every control; keyboard focus is visible", async () => {
    expect(await page.title()).toContain("local privacy");
    const methods = await page
      .locator('input[name="method"]')
      .evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));
    expect(methods).toEqual([...HARNESS_METHOD_IDS]);
    expect(served.info.methods).toEqual([...HARNESS_METHOD_IDS]);
    // Checked when the page opens: CALM and calm-plus (the best estimator) among the defaults.
    const checked = await page
      .locator('input[name="method"]:checked')
      .evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));
    expect(checked).toEqual(
      ["calm", "calm-plus", "fc", "am", "ft", "uni"].filter((id) => HARNESS_METHOD_IDS.includes(id)),
    );
    const unlabelled = await page.evaluate(() =>
      Array.from(document.querySelectorAll("input, select, button"))
        .filter((el) => {
          const control = el as HTMLInputElement;
          const named =
            (control.labels?.length ?? 0) > 0 ||
            control.getAttribute("aria-label") ||
            control.getAttribute("aria-labelledby") ||
            (el.tagName === "BUTTON" && el.textContent?.trim());
          return !named;
        })
        .map((el) => el.outerHTML.slice(0, 80)),
    );
    expect(unlabelled).toEqual([]);
    await page.keyboard.press("Tab"); // the skip link
    await page.keyboard.press("Tab"); // the dataset select
    const focus = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      const style = getComputedStyle(el);
      return { id: el.id, outline: `${style.outlineStyle} ${style.outlineWidth}` };
    });
    expect(focus).toEqual({ id: "source", outline: "solid 3px" });
  });

  it("runs a seeded configuration: chart, table, plan and heatmaps show the CLI's numbers", async () => {
    await page.getByLabel("Dataset", { exact: true }).selectOption("synthetic-bn");
    await page.getByLabel("Correlation strength", { exact: true }).fill("0.6");
    await page.getByLabel("Parents per node", { exact: true }).fill("2");
    await page.getByLabel("Categories", { exact: true }).first().fill("2");
    await page.getByLabel("Network seed", { exact: true }).fill("7");
    await page.getByLabel("Users n", { exact: true }).fill("5000");
    await page.getByLabel("Attributes d", { exact: true }).fill("3");
    await page.getByLabel("Query size k", { exact: true }).fill("3");
    await page.getByLabel("Privacy budgets ε", { exact: true }).fill("0.5, 1, 2, 4");
    await page.getByLabel("Repetitions", { exact: true }).fill("2");
    await page.getByLabel("Queries", { exact: true }).fill("all");
    await page.getByLabel("seeded (reproducible, as the CLI)", { exact: true }).check();
    await page.getByLabel("Master seed", { exact: true }).fill("11");
    for (const id of HARNESS_METHOD_IDS) await page.getByLabel(id, { exact: true }).check(); // every method
    await page.getByLabel("Master seed", { exact: true }).press("Enter"); // submit with the keyboard
    await page.waitForSelector("body[data-state=done]", { timeout: 45_000 });
    expect(await page.locator("#status").textContent()).toMatch(/^Done: \d+ method runs/);

    // The same configuration through the CLI's run command, with the command line the page shows.
    const command = (await page.locator("#cli").textContent())!;
    expect(command).toContain("--eps 0.5,1,2,4");
    const { doc, runs: cliRuns } = await runPageCommand<{ results: SummaryRow[] }, MethodRun>(command);
    const ok = doc.results.filter((row) => row.reps > 0);
    expect(ok.length).toBeGreaterThan(0);

    // Summary table: a cell per (method, eps), full precision in data attributes.
    const rows = await page.locator("#summary td[data-method]").evaluateAll((tds) =>
      tds.map((td) => ({
        method: td.getAttribute("data-method")!,
        eps: Number(td.getAttribute("data-eps")),
        sse: Number(td.getAttribute("data-sse")),
      })),
    );
    expect(rows).toHaveLength(doc.results.length);
    for (const row of ok) {
      const shown = rows.find((r) => r.method === row.method && r.eps === row.eps)!;
      expect(
        agree(shown.sse, row.sseMean),
        `${row.method} eps=${row.eps}: ${shown.sse} vs ${row.sseMean}`,
      ).toBe(true);
    }

    // SSE chart: one point per successful (method, eps), its accessible label carrying the plotted value.
    const points = await page
      .locator("#sse-chart g.mark-symbol path[aria-label]")
      .evaluateAll((paths) => paths.map((p) => p.getAttribute("aria-label")!));
    expect(points).toHaveLength(ok.length);
    for (const label of points) {
      const match = /^eps: ([\d.e+-]+); SSE[^:]*: ([\d.e+-]+); method: (\S+)$/.exec(label);
      expect(match, label).not.toBeNull();
      const row = ok.find((r) => r.method === match![3] && r.eps === Number(match![1]))!;
      expect(agree(Number(match![2]), row.sseMean), `${label} vs ${row.sseMean}`).toBe(true);
    }
    expect(
      await page.locator("#sse-chart g.mark-rule path, #sse-chart g.mark-rule line").count(),
    ).toBeGreaterThan(0);

    // CALM's plan: one line per eps, l and m as the CLI recorded them.
    if (HARNESS_METHOD_IDS.includes("calm")) {
      const plans = await page.locator("#plan li[data-eps]").evaluateAll((lis) =>
        lis.map((li) => ({
          eps: Number(li.getAttribute("data-eps")),
          l: Number(li.getAttribute("data-l")),
          m: Number(li.getAttribute("data-m")),
        })),
      );
      expect(plans.map((p) => p.eps)).toEqual([0.5, 1, 2, 4]);
      for (const plan of plans) {
        const run = cliRuns.find((r) => r.rep === 0 && r.method === "calm" && r.eps === plan.eps)!;
        expect(run.details).toMatchObject({ l: plan.l, m: plan.m });
      }
    }

    // Heatmaps: for every method (at every eps for the first, at eps = 1 for the others), the estimated table's
    // SSE against the true one is the CLI's repetition-1 SSE (d = k, so that marginal is the run's only query),
    // and the rendered cells carry the values.
    const inspected = cliRuns.filter(
      (r) => r.rep === 0 && !r.error && (r.method === HARNESS_METHOD_IDS[0] || r.eps === 1),
    );
    expect(inspected.length).toBeGreaterThanOrEqual(4);
    let withBars = 0;
    for (const run of inspected) {
      await page.getByLabel("Method", { exact: true }).selectOption(run.method);
      await page.getByLabel("ε", { exact: true }).selectOption(String(run.eps));
      const caption = page.locator("#table-numbers caption");
      await expect.poll(() => caption.textContent()).toContain(`${run.method} at ε = ${run.eps}:`);
      const numbers = await page.locator("#table-numbers table").evaluate((table) => ({
        sse: Number((table as HTMLElement).dataset.sse),
        truth: Array.from(table.querySelectorAll("tr[data-truth]"), (tr) =>
          Number(tr.getAttribute("data-truth")),
        ),
        estimate: Array.from(table.querySelectorAll("tr[data-estimate]"), (tr) =>
          Number(tr.getAttribute("data-estimate")),
        ),
        // The 95% interval's half-width per cell, when the method gives one (data-lower/data-upper).
        halfWidths: Array.from(
          table.querySelectorAll("tr[data-lower]"),
          (tr) => Math.abs(Number(tr.getAttribute("data-upper")) - Number(tr.getAttribute("data-lower"))) / 2,
        ),
      }));
      expect(agree(numbers.sse, run.sse), `${run.method} eps=${run.eps}: ${numbers.sse} vs ${run.sse}`).toBe(
        true,
      );
      expect(numbers.truth).toHaveLength(8);
      for (const [id, values] of [
        ["#heatmap-true", numbers.truth],
        ["#heatmap-estimate", numbers.estimate],
      ] as const) {
        await expect.poll(() => page.locator(`${id} g.mark-rect.role-mark path`).count()).toBe(8);
        const texts = await page
          .locator(`${id} g.mark-text.role-mark:not(.cell_interval_marks) text`)
          .evaluateAll((nodes) => nodes.map((n) => Number(n.textContent!.replace("\u2212", "-"))));
        expect(texts).toHaveLength(8);
        // Labels are rounded to 3 decimals: within half a unit of the last place.
        texts.forEach((text, i) => {
          expect(Math.abs(text - values[i]!)).toBeLessThanOrEqual(0.0005 + 1e-12);
        });
      }
      // Error bars on the estimated heatmap: "±half-width" under each cell's value, as in the table.
      const bars = await page
        .locator("#heatmap-estimate g.mark-text.cell_interval_marks text")
        .evaluateAll((nodes) => nodes.map((n) => n.textContent!));
      expect(bars, run.method).toHaveLength(numbers.halfWidths.length);
      bars.forEach((bar, i) => {
        expect(bar).toMatch(/^±\d\.\d{3}$/);
        expect(Math.abs(Number(bar.slice(1)) - numbers.halfWidths[i]!)).toBeLessThanOrEqual(0.0005 + 1e-12);
      });
      if (run.method === "inpht") withBars++;
    }

    // InpHT gives an analytic interval on every inspected marginal: its heatmap had error bars.
    expect(withBars).toBeGreaterThan(0);
    await page.getByLabel("Method", { exact: true }).selectOption(HARNESS_METHOD_IDS[0]!);
    await page.getByLabel("ε", { exact: true }).selectOption("1");
    await page.waitForTimeout(300);
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, "web-demo.png"), fullPage: true });
    expect(existsSync(join(OUTPUT, "web-demo.png"))).toBe(true);
    expect(problems).toEqual([]);
  });

  it("never cuts the chart's legend off: where the results column is narrower than the chart, it scales down", async () => {
    /** The SSE chart's legend title and right edges (pixels) of it, the chart's SVG and its column. */
    const edges = () =>
      page.evaluate(() => {
        const title = document.querySelector("#sse-chart g.role-legend-title text")!;
        const right = (el: Element) => el.getBoundingClientRect().right;
        const svg = document.querySelector("#sse-chart svg")!;
        return {
          text: title.textContent,
          title: right(title),
          svg: right(svg),
          column: right(svg.parentElement!),
        };
      });
    // 1220 and 600 pixels: the widths at which the column is narrower than the chart (a 1280 window less its scroll bar).
    for (const width of [1220, 600, 1366]) {
      await page.setViewportSize({ width, height: 768 });
      const at = await edges();
      expect(at.text).toBe("method");
      expect(at.svg, `window ${width}`).toBeLessThanOrEqual(at.column + 0.5);
      expect(at.title, `window ${width}`).toBeLessThanOrEqual(at.column + 0.5);
    }
    // The check catches the bug: without the scaling rule the title is cut off at 1220 pixels.
    await page.setViewportSize({ width: 1220, height: 768 });
    const broken = await page.addStyleTag({ content: ".chart svg { max-width: none !important; }" });
    const clipped = await edges();
    expect(clipped.title).toBeGreaterThan(clipped.column);
    await broken.evaluate((node) => (node as Element).remove());
    await page.setViewportSize({ width: 1366, height: 768 });
    expect(problems).toEqual([]);
  });

  it("runs with the browser's crypto random source, and Cancel stops a long run at once", async () => {
    await page.getByLabel("crypto.getRandomValues", { exact: true }).check();
    await page.getByRole("button", { name: "Run" }).click();
    await page.waitForSelector("body[data-state=done]", { timeout: 30_000 });
    expect(await page.locator("#random-note").textContent()).toContain("crypto.getRandomValues");

    // A run far too long to finish: every one of 4 million users perturbed, 8 eps, 50 repetitions.
    await page.getByLabel("every user perturbed", { exact: true }).check();
    await page.getByLabel("Users n", { exact: true }).fill("4194304");
    await page.getByLabel("Attributes d", { exact: true }).fill("8");
    await page.getByLabel("Privacy budgets ε", { exact: true }).fill("0.5:4:8");
    await page.getByLabel("Repetitions", { exact: true }).fill("50");
    await page.getByRole("button", { name: "Run" }).click();
    await page.waitForSelector("body[data-state=running]");
    expect(await page.locator("#progress").isVisible()).toBe(true);
    const focused = () => page.evaluate(() => document.activeElement?.id);
    expect(await focused()).toBe("cancel"); // Run is disabled while running: focus moves to Cancel
    const started = Date.now();
    await page.keyboard.press("Enter"); // Cancel, from the keyboard
    // The run would take minutes: reaching "cancelled" at all shows Cancel stops the worker
    // (generous bound for a loaded CI machine).
    await page.waitForSelector("body[data-state=cancelled]", { timeout: 20_000 });
    expect(Date.now() - started).toBeLessThan(20_000);
    const total = 8 * 50 * HARNESS_METHOD_IDS.length;
    expect(await page.locator("#status").textContent()).toMatch(
      new RegExp(`^Cancelled after \\d+ of ${total} method runs`),
    );
    expect(await page.getByRole("button", { name: "Run" }).isEnabled()).toBe(true);
    expect(await focused()).toBe("run");
    expect(await page.getByRole("button", { name: "Cancel" }).isDisabled()).toBe(true);
    expect(problems).toEqual([]);
  });
});
