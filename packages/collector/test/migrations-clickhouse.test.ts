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

  it("an earlier layout (reports in a ReplacingMergeTree, no maintained counts) is refused naming the fix; the current one is stamped; a newer one is refused", async () => {
    // As layouts 1 and 2 left a cluster: calm_reports a ReplacingMergeTree, no version table.
    await onEveryShard(url, `CREATE DATABASE IF NOT EXISTS ${database}`);
    await onEveryShard(
      url,
      `CREATE TABLE ${database}.calm_reports (round_no UInt64, report_id UUID, view UInt32,
         cells Array(UInt32)) ENGINE = ReplacingMergeTree() ORDER BY (round_no, report_id)`,
    );
    await expect(openClickHouseStorage(url)).rejects.toThrow(/made by an earlier collector.*fresh database/);
    await onEveryShard(url, `DROP TABLE ${database}.calm_reports`);

    const plan = planCalm({ schema: uniformSchema(4, 2), eps: 1, k: 2, n: 1000 });
    let storage = await openClickHouseStorage(url);
    expect(await versions()).toEqual([CLICKHOUSE_SCHEMA_VERSION, CLICKHOUSE_SCHEMA_VERSION]);
    const round = await storage.createRound(roundToStore(plan, fixedId(77)));
    await storage.storeReports(round, [acceptedReport(1, 0, [1]), acceptedReport(2, 0, [0])]);
    expect((await storage.counts(round)).accepted).toBe(2);
    expect(await storage.ready!()).toEqual({
      found: CLICKHOUSE_SCHEMA_VERSION,
      expected: CLICKHOUSE_SCHEMA_VERSION,
    });
    await storage.close();
    // Opening again keeps the data and stamps nothing new.
    storage = await openClickHouseStorage(url);
    expect((await storage.counts((await storage.findRound(fixedId(77)))!)).accepted).toBe(2);
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
