import { planCalm } from "@calm-ldp/calm-core";
import { uniformSchema } from "@calm-ldp/marginal-algebra";
import { expect, it } from "vitest";
import { openClickHouseStorage, parseClickHouseUrl } from "../src/clickhouse.js";
import { CLICKHOUSE_SCHEMA_VERSION } from "../src/migrations/clickhouse.js";
import { onEveryShard, suiteClickhouseDatabase } from "./clickhouse-cluster.js";
import { acceptedReport, clickhouseCluster, describeWith, fixedId, roundToStore } from "./support.js";

describeWith(clickhouseCluster(), "ClickHouse schema versions", (service) => {
  const url = suiteClickhouseDatabase(service.url!, "layout");
  const { database } = parseClickHouseUrl(url);
  const versions = async () =>
    (await onEveryShard(url, `SELECT max(version) FROM ${database}.calm_schema_version`)).map(Number);

  it("a cluster of layout 1 (no round state, no version) is brought to version 2 with its reports kept; a newer one is refused", async () => {
    const plan = planCalm({ schema: uniformSchema(4, 2), eps: 1, k: 2, n: 1000 });
    let storage = await openClickHouseStorage(url);
    const round = await storage.createRound(roundToStore(plan, fixedId(77)));
    await storage.storeReports(round, [acceptedReport(1, 0, [1]), acceptedReport(2, 0, [0])]);
    await storage.close();
    // As version 1 left a cluster: no round state, no closed counts, no version table.
    for (const table of [
      "calm_closed_counts_all",
      "calm_closed_counts",
      "calm_round_state",
      "calm_schema_version",
    ])
      await onEveryShard(url, `DROP TABLE ${database}.${table}`);

    storage = await openClickHouseStorage(url);
    expect(await versions()).toEqual([CLICKHOUSE_SCHEMA_VERSION, CLICKHOUSE_SCHEMA_VERSION]);
    const again = (await storage.findRound(fixedId(77)))!;
    expect((await storage.counts(again)).accepted).toBe(2);
    expect(await storage.closeRound(again, new Date("2026-02-01T00:00:00Z"))).toMatchObject({
      closedAt: "2026-02-01T00:00:00.000Z",
    });
    expect(await storage.ready!()).toEqual({
      found: CLICKHOUSE_SCHEMA_VERSION,
      expected: CLICKHOUSE_SCHEMA_VERSION,
    });
    await storage.close();

    await onEveryShard(
      url,
      `INSERT INTO ${database}.calm_schema_version VALUES (${CLICKHOUSE_SCHEMA_VERSION + 1}, 'later')`,
    );
    await expect(openClickHouseStorage(url)).rejects.toThrow(
      `the clickhouse database's schema is version ${CLICKHOUSE_SCHEMA_VERSION + 1}, newer than version ${CLICKHOUSE_SCHEMA_VERSION}`,
    );
  });
});
