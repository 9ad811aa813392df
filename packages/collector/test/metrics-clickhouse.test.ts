import { seededRng } from "@calm-ldp/random";
import { afterAll, expect, it, vi } from "vitest";
import type { CollectorStorage } from "../src/api.js";
import { openStorage, startCollector } from "../src/index.js";
import { ROUND_GAUGES_TTL_MS } from "../src/metrics.js";
import { suiteClickhouseDatabase } from "./clickhouse-cluster.js";
import { delta, deltasBy, parseMetrics, sample } from "./metrics-text.js";
import {
  clickhouseCluster,
  createRoundFor,
  describeWith,
  mixedRecords,
  reportsOf,
  sleep,
  TOKEN,
} from "./support.js";

const SIZE = sample("calm_collector_group_commit_size_sum", { backend: "clickhouse" });
const GROUPS = sample("calm_collector_group_commit_size_count", { backend: "clickhouse" });
const committed = (outcome: string) =>
  sample("calm_collector_group_commit_duration_seconds_count", { backend: "clickhouse", outcome });

/**
 * Group-commit metrics on ClickHouse (each shard's writer commits in groups):
 * every report of a batch reaches exactly one shard's writer once, so the
 * scraped group sizes add up to exactly the stored and duplicate reports of the
 * load; with the storage's hook hidden (the broken variant: metrics not wired)
 * they do not move, which the same check catches.
 */
describeWith(clickhouseCluster(), "metrics on ClickHouse: group commits", (service) => {
  const url = suiteClickhouseDatabase(service.url!, "metrics");
  const storages: CollectorStorage[] = [];
  afterAll(async () => {
    for (const storage of storages) await storage.close().catch(() => undefined);
  });

  /** A load of 10 concurrent batches of 20, batch 0 again, and 10 new with 10 seen: the scrapes' deltas. */
  const load = async (wired: boolean, seed: number) => {
    const real = await openStorage({ clickhouse: url });
    storages.push(real);
    const storage = wired
      ? real
      : new Proxy(real, {
          get: (target, key) => {
            if (key === "observeGroupCommits") return undefined;
            const value = Reflect.get(target, key);
            return typeof value === "function" ? value.bind(target) : value;
          },
        });
    const collector = await startCollector({ storage, adminToken: TOKEN, log: () => {} });
    try {
      const records = mixedRecords(1000, seed);
      const { round, plan } = await createRoundFor(collector.url, records, 1000);
      const rng = seededRng(seed);
      const post = async (reports: unknown[]) => {
        const response = await fetch(`${collector.url}/v1/rounds/${round}/reports`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ round, reports }),
        });
        expect(response.status).toBe(200);
      };
      const scrape = async () => parseMetrics(await (await fetch(`${collector.url}/metrics`)).text());
      const before = await scrape();
      const sent = Array.from({ length: 10 }, (_, b) => reportsOf(plan, records, 20 * b, 20, rng));
      await Promise.all(sent.map(post));
      await post(sent[0]!);
      await post([...reportsOf(plan, records, 200, 10, rng), ...sent[1]!.slice(0, 10)]);
      const after = await scrape();
      // Round gauges (recomputed past their TTL from the batched reads): 1 round, open, 210 ids held.
      vi.useFakeTimers({ toFake: ["Date"] });
      vi.setSystemTime(Date.now() + ROUND_GAUGES_TTL_MS + 1);
      let gauges = await scrape();
      for (let i = 0; i < 50 && gauges.get("calm_collector_held_report_ids") !== 210; i++) {
        await sleep(50);
        gauges = await scrape();
      }
      vi.useRealTimers();
      const rounds = ["rounds", "open_rounds", "held_report_ids"].map((g) =>
        gauges.get(`calm_collector_${g}`),
      );
      return {
        rounds,
        reports: deltasBy(before, after, "calm_collector_reports_total", "outcome"),
        size: delta(before, after, SIZE),
        groups: delta(before, after, GROUPS),
        committed: delta(before, after, committed("committed")),
        failed: delta(before, after, committed("failed")),
      };
    } finally {
      await collector.close();
    }
  };

  it("group sizes add up to exactly the load's reports; durations counted per group; unwired: nothing", async () => {
    const wired = await load(true, 31);
    expect(wired.reports).toEqual({ stored: 210, duplicate: 30 });
    expect(wired.rounds).toEqual([1, 1, 210]);
    expect(wired.size).toBe(240); // every report posted: 210 stored + 30 duplicates
    // Both shards' writers committed groups (at most one per batch and shard), none failed.
    expect(wired.groups).toBeGreaterThanOrEqual(2);
    expect(wired.groups).toBeLessThanOrEqual(12 * 2);
    expect([wired.committed, wired.failed]).toEqual([wired.groups, 0]);

    const unwired = await load(false, 32);
    expect(unwired.reports).toEqual({ stored: 210, duplicate: 30 });
    expect([unwired.size, unwired.groups]).toEqual([0, 0]);
  }, 120_000);
});
