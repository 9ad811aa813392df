import { join } from "node:path";
import { createReport, readPlan, sendReports } from "@calm-ldp/client";
import { seededRng } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { type CollectorStorage, openStorage, startCollector } from "../src/index.js";
import { suiteClickhouseDatabase } from "./clickhouse-cluster.js";
import {
  call,
  createBinaryCampaign,
  databaseServers,
  TOKEN,
  withPostgresDatabase,
  withTempDir,
} from "./support.js";

/**
 * Campaigns live in the rounds table, so every backend serves them through
 * `listRounds`: the same scenario on DuckDB, PostgreSQL (.ci/setup-postgres) and
 * the two-shard ClickHouse cluster (.ci/setup-clickhouse). A backend that cannot
 * be installed here skips loudly, never under CI.
 */
const { postgres, clickhouse } = databaseServers("campaigns");

/** Create a campaign, 40 then 25 reports in two rounds, and read it back through the API. */
async function scenario(storage: CollectorStorage) {
  const collector = await startCollector({ storage, adminToken: TOKEN });
  try {
    const url = collector.url;
    const { campaign, round: first, plan } = await createBinaryCampaign(url);
    const rng = seededRng(5);
    const post = async (round: string, count: number) =>
      sendReports(
        url,
        round,
        Array.from({ length: count }, (_, i) => createReport(plan, [i & 1, (i >> 1) & 1, 0, 1], { rng })),
      );
    await post(first, 40);
    const next = await call(`${url}/v1/campaigns/${campaign}/rounds`, "POST", {});
    expect(next).toMatchObject({ status: 201, body: { index: 1, closed: first } });
    await post(next.body.round as string, 25);
    const current = await call(`${url}/v1/campaigns/${campaign}/current`, "GET");
    const described = await call(`${url}/v1/campaigns/${campaign}`, "GET");
    const series = await call(`${url}/v1/campaigns/${campaign}/marginals?attrs=b0,b1`, "GET");
    const late = await post(first, 1).catch((e) => e);
    // Creating a stored round again (as a second collector opening the same campaign round does)
    // yields the stored round and stores nothing.
    const stored = (await storage.findRound(next.body.round as string))!;
    const before = (await storage.listRounds!()).length;
    const again = await storage.createRound({ ...stored, createdAt: new Date(0).toISOString() });
    return {
      current: [current.body.index, current.body.round === next.body.round],
      rounds: (described.body.rounds as { index: number; closedAt: string | null }[]).map((r) => [
        r.index,
        r.closedAt === null,
      ]),
      samePlan: JSON.stringify(readPlan(current.body.plan)) === JSON.stringify(plan),
      n: (series.body.series as { n: number }[]).map((p) => p.n),
      late: [late.status, late.reason],
      recreated: [
        again.no === stored.no,
        again.createdAt === stored.createdAt,
        (await storage.listRounds!()).length - before,
      ],
    };
  } finally {
    await collector.close();
  }
}

const expected = {
  current: [1, true],
  rounds: [
    [0, false],
    [1, true],
  ],
  samePlan: true,
  n: [40, 25],
  late: [409, "round-closed"],
  recreated: [true, true, 0],
};

describe("campaigns on every backend", () => {
  it("DuckDB", async () => {
    await withTempDir(async (dir) => {
      expect(await scenario(await openStorage({ duckdb: join(dir, "c.duckdb") }))).toEqual(expected);
    });
  });

  it.skipIf(postgres.unavailable !== undefined)(
    "PostgreSQL",
    async () => {
      await withPostgresDatabase(postgres.url!, "campaigns", async (url) => {
        expect(await scenario(await openStorage({ postgres: url }))).toEqual(expected);
      });
    },
    60_000,
  );

  describe.skipIf(clickhouse.unavailable !== undefined)("ClickHouse", () => {
    const url = suiteClickhouseDatabase(clickhouse.url ?? "", "campaigns");
    it("two shards", async () => {
      expect(await scenario(await openStorage({ clickhouse: url }))).toEqual(expected);
    }, 120_000);
  });
});
