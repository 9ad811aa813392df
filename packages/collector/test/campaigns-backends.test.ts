import { rmSync } from "node:fs";
import { join } from "node:path";
import { createReport, readPlan, sendReports } from "@calm-ldp/client";
import { seededRng } from "@calm-ldp/random";
import { afterAll, describe, expect, it } from "vitest";
import { type CollectorStorage, openStorage, startCollector } from "../src/index.js";
import { clickhouseCluster, dropDatabase, freshDatabase } from "./clickhouse-cluster.js";
import { call, freshPostgresDatabase, postgresServer, TOKEN, tempDir } from "./support.js";

/**
 * Campaigns live in the rounds table, so every backend serves them through
 * `listRounds`: the same scenario on DuckDB, PostgreSQL (.ci/setup-postgres) and
 * the two-shard ClickHouse cluster (.ci/setup-clickhouse). A backend that cannot
 * be installed here skips loudly, never under CI.
 */
const postgres = postgresServer();
const clickhouse = clickhouseCluster();
for (const [name, server] of [
  ["PostgreSQL", postgres],
  ["ClickHouse", clickhouse],
] as const)
  if (server.unavailable)
    console.warn(
      `\n*** SKIPPED: campaigns on ${name}: it cannot be installed here: ${server.unavailable} ***\n`,
    );

/** Create a campaign, 40 then 25 reports in two rounds, and read it back through the API. */
async function scenario(storage: CollectorStorage) {
  const collector = await startCollector({ storage, adminToken: TOKEN });
  try {
    const url = collector.url;
    const attributes = Array.from({ length: 4 }, (_, i) => ({ name: `b${i}`, labels: ["0", "1"] }));
    const created = await call(`${url}/v1/campaigns`, "POST", {
      schema: { attributes },
      eps: 1,
      k: 2,
      n: 1000,
    });
    expect(created.status).toBe(201);
    const campaign = created.body.campaign as string;
    const plan = readPlan(created.body.plan);
    const rng = seededRng(5);
    const post = async (round: string, count: number) =>
      sendReports(
        url,
        round,
        Array.from({ length: count }, (_, i) => createReport(plan, [i & 1, (i >> 1) & 1, 0, 1], { rng })),
      );
    await post(created.body.round as string, 40);
    const next = await call(`${url}/v1/campaigns/${campaign}/rounds`, "POST", {});
    expect(next).toMatchObject({ status: 201, body: { index: 1, closed: created.body.round } });
    await post(next.body.round as string, 25);
    const current = await call(`${url}/v1/campaigns/${campaign}/current`, "GET");
    const described = await call(`${url}/v1/campaigns/${campaign}`, "GET");
    const series = await call(`${url}/v1/campaigns/${campaign}/marginals?attrs=b0,b1`, "GET");
    const late = await post(created.body.round as string, 1).catch((e) => e);
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
    const dir = tempDir();
    try {
      expect(await scenario(await openStorage({ duckdb: join(dir, "c.duckdb") }))).toEqual(expected);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(postgres.unavailable !== undefined)(
    "PostgreSQL",
    async () => {
      const database = await freshPostgresDatabase(postgres.url!, "campaigns");
      try {
        expect(await scenario(await openStorage({ postgres: database.url }))).toEqual(expected);
      } finally {
        await database.drop();
      }
    },
    60_000,
  );

  describe.skipIf(clickhouse.unavailable !== undefined)("ClickHouse", () => {
    const url = freshDatabase(clickhouse.url ?? "", "campaigns");
    afterAll(() => dropDatabase(url));
    it("two shards", async () => {
      expect(await scenario(await openStorage({ clickhouse: url }))).toEqual(expected);
    }, 120_000);
  });
});
