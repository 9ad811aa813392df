import { existsSync } from "node:fs";
import { join } from "node:path";
import { readPlan } from "@calm-ldp/client";
import { createRecordStore, createSchema, type RecordStore } from "@calm-ldp/marginal-algebra";
import { bernoulli, type Rng, seededRng, uniformInt } from "@calm-ldp/random";
import { type Browser, chromium, type Page } from "playwright-core";
import { buildConsole } from "../scripts/build-console.js";
import type { CollectorOptions, CollectorStorage } from "../src/api.js";
import { openDuckDbStorage } from "../src/duckdb.js";
import { StorageError } from "../src/errors.js";
import { simulateUsers } from "../src/simulate-users.js";
import { type RunningCollector, startCollector } from "../src/start-collector.js";
import { call, TOKEN } from "./support.js";

/**
 * What the console's Chromium test (test/console-browser.test.ts) and its
 * benchmark (bench/console.ts) share: a collector with the freshly built console
 * and an outage switch, a seeded campaign of labelled records, and Debian's
 * Chromium.
 */

/** Debian's Chromium (`.ci/setup-chromium` installs it; never a downloaded one). */
export const CHROMIUM = "/usr/bin/chromium";

/** The campaign's attributes: labelled, so the console's heatmaps and legends read like a real one's. */
export const ATTRIBUTES = [
  { name: "browser", labels: ["chrome", "firefox", "safari"] },
  { name: "os", labels: ["linux", "mac", "windows"] },
  { name: "dark-mode", labels: ["no", "yes"] },
  { name: "lang", labels: ["en", "de", "fr", "other"] },
];

/**
 * `n` seeded records of {@link ATTRIBUTES}: browser uniform, os equal to browser
 * w.p. 0.6, dark mode w.p. `dark` (so a series across rounds moves), lang uniform.
 */
export function campaignRecords(n: number, seed: number, dark: number): RecordStore {
  const rng: Rng = seededRng(seed);
  const schema = createSchema(ATTRIBUTES);
  const columns = ATTRIBUTES.map(() => new Uint8Array(n));
  for (let r = 0; r < n; r++) {
    columns[0]![r] = uniformInt(rng, 3);
    columns[1]![r] = bernoulli(rng, 0.6) ? columns[0]![r]! : uniformInt(rng, 3);
    columns[2]![r] = bernoulli(rng, dark) ? 1 : 0;
    columns[3]![r] = uniformInt(rng, 4);
  }
  return createRecordStore(schema, { columns });
}

/**
 * A collector serving the console built into `dir/console`, on DuckDB in `dir`, whose storage fails while
 * `outage.down`; `options` added to the collector's (e.g. `unaryReportCheck`).
 */
export async function startConsoleCollector(
  dir: string,
  options: Partial<CollectorOptions> = {},
): Promise<{
  collector: RunningCollector;
  outage: { down: boolean };
}> {
  const consoleDir = join(dir, "console");
  await buildConsole(consoleDir);
  const outage = { down: false };
  const real = await openDuckDbStorage(join(dir, "console.duckdb"));
  const storage = new Proxy(real, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== "function" || key === "close")
        return typeof value === "function" ? value.bind(target) : value;
      return (...args: unknown[]) =>
        outage.down
          ? Promise.reject(new StorageError("simulated outage: the database is away"))
          : (value as (...a: unknown[]) => unknown).apply(target, args);
    },
  }) as CollectorStorage;
  const collector = await startCollector({
    storage,
    adminToken: TOKEN,
    consoleDir,
    log: () => {},
    ...options,
  });
  return { collector, outage };
}

/** What {@link seedCampaign} made. */
export interface SeededCampaign {
  readonly campaign: string;
  /** Round ids, by index; the last one is open. */
  readonly rounds: string[];
}

/**
 * A campaign (eps 1, k 2, planned for 10,000 users) of `rounds` rounds opened by the admin API, each with
 * `users` simulated users (seeded records and randomness; the share of dark mode
 * grows by 0.1 a round, from 0.2 to 0.8 and again), one refused batch (a report of a view the plan lacks:
 * `unknown-view`) and, from round 1 on, one batch sent to the previous, closed round
 * (`round-closed`). O(rounds * users).
 */
export async function seedCampaign(url: string, rounds: number, users: number): Promise<SeededCampaign> {
  const created = await call(`${url}/v1/campaigns`, "POST", {
    schema: { attributes: ATTRIBUTES },
    eps: 1,
    k: 2,
    n: 10_000,
  });
  if (created.status !== 201) throw new Error(`seedCampaign: ${JSON.stringify(created.body)}`);
  const campaign = created.body.campaign as string;
  const plan = readPlan(created.body.plan);
  const ids = [created.body.round as string];
  const post = (round: string, reports: unknown[]) =>
    call(`${url}/v1/rounds/${round}/reports`, "POST", { round, reports });
  for (let i = 0; i < rounds; i++) {
    const round = ids[i]!;
    if (users > 0)
      await simulateUsers({
        url,
        round,
        plan,
        records: campaignRecords(users, 100 + i, 0.2 + 0.1 * (i % 7)),
        rng: seededRng(200 + i),
        batchSize: 250,
      });
    const stray = {
      id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      view: plan.m + 3,
      value: 0,
    };
    await post(round, [stray]); // 400 unknown-view, counted in the round's refusals
    if (i > 0) await post(ids[i - 1]!, [{ ...stray, view: 0 }]); // 409 round-closed
    if (i + 1 < rounds) {
      const next = await call(`${url}/v1/campaigns/${campaign}/rounds`, "POST", {});
      ids.push(next.body.round as string);
    }
  }
  return { campaign, rounds: ids };
}

/** Headless Debian Chromium, off the network and out of the sandbox (tests run as root). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
  });
}

/** Undefined when Chromium is installed, else why the browser tests cannot run (CI must have it). */
export function chromiumMissing(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is absent (install it with .ci/setup-chromium)`;
}

/** A page's uncaught errors and console messages of level error, as lines. */
export function watchErrors(page: Page): string[] {
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()}`);
  });
  return problems;
}
