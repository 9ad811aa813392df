import { join } from "node:path";
import type { createReport } from "@calm-ldp/client";
import { describe, expect, it } from "vitest";
import type { CollectorStorage } from "../src/api.js";
import { openStorage, type RunningCollector, startCollector } from "../src/index.js";
import { suiteClickhouseDatabase } from "./clickhouse-cluster.js";
import { parseMetrics, sample } from "./metrics-text.js";
import {
  allOnesReport,
  call,
  createRound,
  databaseServers,
  TOKEN,
  UNARY_ROUND,
  withoutMethod,
  withPostgresDatabase,
  withTempDir,
} from "./support.js";

/**
 * The per-report unary check's dropped count (`unaryDropped` in round status) is
 * kept in the storage's counters: a restarted collector, and a second collector
 * on the same database (DuckDB: restart; PostgreSQL, ClickHouse: two collectors and
 * a restart), show the same count, per view. The check runs here in
 * unprotected mode (`unaryReportCheck: 0.01`), so no token is needed; protected
 * mode takes the same path (test/unary-drop.test.ts).
 */
const { postgres, clickhouse } = databaseServers("shared dropped-report counts");

const ALPHA = 0.01;
async function start(storage: CollectorStorage): Promise<RunningCollector> {
  return startCollector({ storage, adminToken: TOKEN, unaryReportCheck: ALPHA });
}

const statusOf = async (url: string, round: string) =>
  (await call(`${url}/v1/rounds/${round}/status`, "GET")).body as {
    accepted: number;
    unaryDropped: { reports: number; perView: number[]; alpha: number };
    dropped: Record<string, number[]>;
  };

/**
 * On the collector at `url`: a round, a batch with one honest report and
 * crafted all-ones reports (two in the last view, one in view 0); returns the
 * round and the per-view drops expected.
 */
async function dropSome(url: string) {
  const { round, plan } = await createRound(url, UNARY_ROUND);
  const m = plan.views.length;
  const last = m - 1;
  const reports = [allOnesReport(plan, 0), allOnesReport(plan, last), allOnesReport(plan, last)];
  const ack = await call(`${url}/v1/rounds/${round}/reports`, "POST", { round, reports }, undefined);
  expect(ack.body).toMatchObject({ acknowledged: 3, stored: 0, dropped: 3 });
  const perView = new Array<number>(m).fill(0);
  perView[0]! += 1;
  perView[last]! += 2;
  return { round, perView, reports: 3 };
}

/** Open `location`'s storage, start a collector on it, run `body`, close both. */
async function withCollector<T>(
  open: () => Promise<CollectorStorage>,
  body: (url: string) => Promise<T>,
): Promise<T> {
  const collector = await start(await open());
  try {
    return await body(collector.url);
  } finally {
    await collector.close();
  }
}

/**
 * Two collectors on one database (`open` opens it): drops through the first are
 * seen by the second, drops through the second add to the same counters, and a
 * collector started after both closed shows the total.
 */
async function sharedScenario(open: () => Promise<CollectorStorage>): Promise<void> {
  const a = await start(await open());
  const b = await start(await open());
  let round: string;
  let perView: number[];
  try {
    ({ round, perView } = await dropSome(a.url));
    expect((await statusOf(b.url, round)).unaryDropped).toEqual({ reports: 3, perView, alpha: ALPHA });
    const { plan } = (await call(`${b.url}/v1/rounds/${round}/plan`, "GET", undefined, undefined)).body as {
      plan: Parameters<typeof createReport>[0];
    };
    const more = [allOnesReport(plan, 0)];
    await call(`${b.url}/v1/rounds/${round}/reports`, "POST", { round, reports: more }, undefined);
    perView[0]! += 1;
    expect((await statusOf(a.url, round)).unaryDropped.perView).toEqual(perView);
  } finally {
    await a.close();
    await b.close();
  }
  const after = await withCollector(open, (url) => statusOf(url, round));
  expect(after.unaryDropped).toEqual({ reports: 4, perView, alpha: ALPHA });
}

describe("dropped-report counts survive restarts and are shared through the storage", () => {
  it("DuckDB: a restarted collector shows the same count, per view", async () => {
    await withTempDir(async (dir) => {
      const open = () => openStorage({ duckdb: join(dir, "drops.duckdb") });
      const { round, perView, reports } = await withCollector(open, async (url) => {
        const dropped = await dropSome(url);
        const metrics = parseMetrics(await (await fetch(`${url}/metrics`)).text());
        expect(metrics.get(sample("calm_collector_reports_total", { outcome: "dropped" }))).toBe(3);
        return dropped;
      });
      const after = await withCollector(open, (url) => statusOf(url, round));
      expect(after.accepted).toBe(0);
      expect(after.unaryDropped).toEqual({ reports, perView, alpha: ALPHA });
      expect(after.dropped).toEqual({ "unary-count": perView });
    });
  });

  it("DuckDB, broken variant: counted in the collector's memory, the restart loses the count", async () => {
    await withTempDir(async (dir) => {
      const open = async () =>
        withoutMethod(await openStorage({ duckdb: join(dir, "mem.duckdb") }), "countDropped");
      const { round, reports } = await withCollector(open, async (url) => {
        const dropped = await dropSome(url);
        // Within the process the memory counts it...
        expect((await statusOf(url, dropped.round)).unaryDropped.reports).toBe(dropped.reports);
        return dropped;
      });
      // ...but not after a restart: what the test above would catch.
      const after = await withCollector(open, (url) => statusOf(url, round));
      expect(after.unaryDropped.reports).not.toBe(reports);
      expect(after.unaryDropped.reports).toBe(0);
    });
  });

  it.skipIf(postgres.unavailable !== undefined)(
    "PostgreSQL: a second collector on the database, and a restarted one, show the same count",
    async () => {
      await withPostgresDatabase(postgres.url!, "unary_drops", async (url) =>
        sharedScenario(() => openStorage({ postgres: url })),
      );
    },
  );

  describe.skipIf(clickhouse.unavailable !== undefined)("ClickHouse", () => {
    const url = suiteClickhouseDatabase(clickhouse.url ?? "", "unary_drops");
    it("two shards: a second collector on the cluster, and a restarted one, show the same count", async () =>
      sharedScenario(() => openStorage({ clickhouse: url })));
  });
});
