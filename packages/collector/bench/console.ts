/**
 * Operator console load time (target: under 1 s for a campaign of 100 rounds).
 * A collector in this process (DuckDB in a temporary directory, the console built
 * by Vite as the package build does) holds a campaign of `--rounds` rounds (default
 * 100) with `--users` simulated users each (default 300, seeded; one refused batch
 * per round), then headless Chromium (Debian's) loads the console pages `--runs`
 * times each (default 7), alternating pages, with the admin token already entered:
 * - overview (`#/`): navigation to the page showing every campaign and round;
 * - campaign (`#/campaigns/<id>`): navigation to the page with its plan and the
 *   rounds table of all rounds (the page is ready; the series is still loading);
 * - series (the same load): navigation to the time series of a 2-way marginal with
 *   95% intervals over every round drawn (`GET /v1/campaigns/:id/marginals`);
 * - round (`#/rounds/<id>`): status, plan and the heatmap with error bars drawn.
 * Prints the median and range of each, the console's bundle sizes, and the API
 * calls behind the campaign page timed alone (median of `--runs`, from Node).
 * Run (one benchmark at a time on a shared machine):
 *   flock /tmp/calm-bench.lock npx tsx bench/console.ts [--rounds 100] [--users 300] [--runs 7]
 */

import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runtime } from "@calm-ldp/bench-support";
import { launchBrowser, seedCampaign, startConsoleCollector } from "../test/console-support.js";
import { TOKEN } from "../test/support.js";

function argument(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const rounds = argument("rounds", 100);
const users = argument("users", 300);
const runs = argument("runs", 7);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const summary = (values: number[]) =>
  `median ${median(values).toFixed(0)} ms (min ${Math.min(...values).toFixed(0)}, max ${Math.max(...values).toFixed(0)}, ${values.length} runs)`;

const dir = mkdtempSync(join(tmpdir(), "calm-console-bench-"));
const { collector } = await startConsoleCollector(dir);
try {
  const seedStart = performance.now();
  const seeded = await seedCampaign(collector.url, rounds, users);
  console.log(
    `console bench: ${runtime()}; campaign of ${rounds} rounds x ${users} users seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`,
  );
  const assets = join(dir, "console", "assets");
  for (const file of readdirSync(assets))
    console.log(`  bundle: ${file} ${statSync(join(assets, file)).size} bytes`);

  const browser = await launchBrowser();
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(`${collector.url}/console/`);
  await page.evaluate((token) => sessionStorage.setItem("calm-ldp-console-token", token), TOKEN);

  // Each navigation waits for everything it started (a series still computing on the
  // server would slow the next page's calls): the campaign page is timed twice in one
  // load, when its rounds table is shown and when its series is drawn.
  const pages: [hash: string, marks: [name: string, ready: string][]][] = [
    ["#/", [["overview", 'main[data-state="ready"] table.campaigns']]],
    [
      `#/campaigns/${seeded.campaign}`,
      [
        ["campaign", 'main[data-state="ready"] table.rounds'],
        ["series", '#series[data-state="ready"] svg'],
      ],
    ],
    [
      `#/rounds/${seeded.rounds[0]}?campaign=${seeded.campaign}`,
      [["round", '#marginal[data-state="ready"] svg']],
    ],
  ];
  const times = new Map<string, number[]>(pages.flatMap(([, marks]) => marks.map(([name]) => [name, []])));
  const requests = new Map<string, number[]>();
  page.on("requestfinished", (request) => {
    const timing = request.timing();
    const path = new URL(request.url()).pathname
      .replace(seeded.campaign, "<id>")
      .replace(/rounds\/[0-9a-f-]{36}/, "rounds/<round>");
    requests.set(path, [...(requests.get(path) ?? []), timing.responseEnd]);
  });
  for (let run = 0; run <= runs; run++) {
    for (const [hash, marks] of pages) {
      await page.goto("about:blank");
      const start = performance.now();
      await page.goto(`${collector.url}/console/${hash}`);
      for (const [name, ready] of marks) {
        await page.waitForSelector(ready, { timeout: 60_000 });
        if (run > 0) times.get(name)!.push(performance.now() - start); // run 0 warms up
      }
    }
  }
  await page.goto(`${collector.url}/console/${pages[1]![0]}`);
  await page.waitForSelector('#series[data-state="ready"] svg');
  const rows = await page.locator("table.rounds tbody tr").count();
  await browser.close();
  for (const [path, values] of requests)
    if (values.length >= runs && !path.includes("/assets/"))
      console.log(`  in the page: ${path}: ${summary(values)}`);
  if (errors.length > 0) throw new Error(`console bench: page errors: ${errors.join("; ")}`);
  console.log(
    `console load, navigation to drawn (Chromium, loopback; campaign page shows ${rows} round rows):`,
  );
  for (const [name, values] of times) console.log(`  ${name.padEnd(9)} ${summary(values)}`);

  // The campaign page's API calls alone (from Node, one at a time).
  const api = async (path: string) => {
    const start = performance.now();
    const response = await fetch(`${collector.url}${path}`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    if (!response.ok) throw new Error(`${path}: ${response.status}`);
    await response.arrayBuffer();
    return performance.now() - start;
  };
  const calls = [
    `/v1/campaigns/${seeded.campaign}`,
    `/v1/rounds?campaign=${seeded.campaign}`,
    `/v1/campaigns/${seeded.campaign}/marginals?attrs=browser,os&interval=0.95`,
  ];
  console.log("campaign page's API calls alone:");
  for (const path of calls) {
    const values: number[] = [];
    for (let run = 0; run <= runs; run++) {
      const ms = await api(path);
      if (run > 0) values.push(ms);
    }
    console.log(`  GET ${path.replace(seeded.campaign, "<id>")}: ${summary(values)}`);
  }
  for (const name of ["campaign", "series"]) {
    const ms = median(times.get(name)!);
    console.log(
      `target: ${name} of ${rounds} rounds under 1000 ms: ${ms < 1000 ? "met" : "NOT met"} (${ms.toFixed(0)} ms)`,
    );
  }
} finally {
  await collector.close();
  rmSync(dir, { recursive: true, force: true });
}
