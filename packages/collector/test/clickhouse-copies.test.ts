import { planCalm } from "@calm-ldp/calm-core";
import { uniformSchema } from "@calm-ldp/marginal-algebra";
import { seededRng, uniformInt } from "@calm-ldp/random";
import { expect, it } from "vitest";
import { openClickHouseStorage, parseClickHouseUrl, shardOf } from "../src/clickhouse.js";
import type { AcceptedReport, CollectorStorage, StoredRound } from "../src/index.js";
import { ShardHttp } from "../src/storage/clickhouse/http.js";
import { reportRowsBinary } from "../src/storage/clickhouse/rowbinary.js";
import { uuidWords } from "../src/uuid-set.js";
import { recountFromRows, suiteClickhouseDatabase } from "./clickhouse-cluster.js";
import { clickhouseCluster, describeWith, fixedId as id, roundToStore } from "./support.js";

/**
 * A collector killed between its insert and its check, whose racer's check ran
 * before that insert landed, leaves a copy no check saw. Simulated here by
 * inserting copies straight into the shards (what the dead collector's insert
 * did) after the reports were stored and checked through the storage.
 */
describeWith(clickhouseCluster(), "ClickHouse: copies no writer's check saw", (cluster) => {
  const url = suiteClickhouseDatabase(cluster.url ?? "", "copies");

  it("a retry's lookup writes such a copy off; one never retried is written off before the round's ids are dropped; counts equal a recount", async () => {
    const plan = planCalm({ schema: uniformSchema(4), n: 1_000, eps: 1, k: 2 }, { l: 2 });
    const cellsPerView = plan.views.map((v) => v.cells);
    const rng = seededRng(77);
    const make = (i: number, view = uniformInt(rng, plan.m)): AcceptedReport => ({
      id: id(70_000 + i),
      view,
      cells: [uniformInt(rng, plan.views[view]!.cells)],
    });
    const reports = Array.from({ length: 200 }, (_, i) => make(i));
    const storage = await openClickHouseStorage(url);
    const round = await storage.createRound(
      roundToStore(plan, "5d1e2f3a-0000-4000-8000-00000000d999", 1_000),
    );
    expect(await storage.storeReports(round, reports)).toEqual({ stored: 200, duplicates: 0 });
    // The dead racer's rows: 40 of the ids again, in another view.
    const copies = reports.slice(0, 40).map((r, i) => make(i, (r.view + 1) % plan.m));
    await insertUnchecked(url, round.no, copies);
    const total = async (s: CollectorStorage, r: StoredRound) =>
      (await s.supportCounts(r)).reportsPerView.reduce((a, b) => a + b, 0);
    const exact = await recountFromRows(url, round.no, cellsPerView);
    expect(exact).toMatchObject({ ids: 200, rows: 240 });
    // The gap: nothing has seen the copies, so the counts hold them.
    expect(await total(storage, round)).toBe(240);
    // A collector started afresh (nothing held in memory) gets 20 of them retried: its lookup sees two rows.
    const retrier = await openClickHouseStorage(url);
    expect(await retrier.storeReports(round, reports.slice(0, 20))).toEqual({ stored: 0, duplicates: 20 });
    expect(await total(retrier, round)).toBe(220);
    // The other 20 are never retried: the drop of the closed round's ids sweeps them.
    await storage.closeRound(round, new Date());
    const later = new Date(Date.now() + 3_600_000);
    expect(await storage.dropClosedIds(later, later)).toContain(round.id);
    const counts = await retrier.supportCounts(round);
    expect(counts.reportsPerView).toEqual(exact.reportsPerView);
    counts.support.forEach((s, v) => {
      expect(Array.from(s), `view ${v}`).toEqual(exact.support[v]);
    });
    expect((await storage.counts(round)).accepted).toBe(200);
    await storage.close();
    await retrier.close();
  });
});

/** Inserts `reports` into their shards' `calm_reports` as a writer does, with no lookup and no check. */
async function insertUnchecked(url: string, no: number, reports: readonly AcceptedReport[]): Promise<void> {
  const { shards, username, password, database } = parseClickHouseUrl(url);
  await Promise.all(
    shards.map(async (endpoint, s) => {
      const mine = reports.filter((r) => shardOf(r.id, shards.length) === s);
      const words = new Uint32Array(4 * mine.length);
      mine.forEach((r, i) => {
        uuidWords(r.id, words, 4 * i);
      });
      const http = new ShardHttp(endpoint, username, password, database, 30_000);
      try {
        await http.insertBinary(`${database}.calm_reports`, reportRowsBinary(no, mine, words));
      } finally {
        http.close();
      }
    }),
  );
}
