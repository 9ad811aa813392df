import { join } from "node:path";
import { planCalm } from "@calm-ldp/calm-core";
import { createSchema, uniformSchema } from "@calm-ldp/marginal-algebra";
import { bernoulli, seededRng, uniformInt } from "@calm-ldp/random";
import { describe, expect, it } from "vitest";
import { openClickHouseStorage, parseClickHouseUrl, shardOf } from "../src/clickhouse.js";
import { openDuckDbStorage } from "../src/duckdb.js";
import type { AcceptedReport, CollectorStorage } from "../src/index.js";
import { estimateMarginal, openStorage, StorageError } from "../src/index.js";
import { onEveryShard, recountFromRows, suiteClickhouseDatabase } from "./clickhouse-cluster.js";
import {
  clickhouseCluster,
  describeWith,
  fixedId as id,
  acceptedReport as report,
  roundToStore,
  suiteTempDir,
} from "./support.js";

describe("ClickHouse URL", () => {
  it("lists one HTTP endpoint per shard, a database and a cluster; anything else is a typed error", () => {
    expect(parseClickHouseUrl("http://u:p%40ss@127.0.0.1:1,127.0.0.1:2/db_1?cluster=c")).toEqual({
      shards: ["http://127.0.0.1:1", "http://127.0.0.1:2"],
      username: "u",
      password: "p@ss",
      database: "db_1",
      cluster: "c",
    });
    expect(parseClickHouseUrl("http://h:8123")).toMatchObject({ database: "calm_ldp", cluster: "calm_ldp" });
    expect(() => parseClickHouseUrl("postgres://h:1/db")).toThrow(/must look like/);
    expect(() => parseClickHouseUrl("http://h:1,h/db")).toThrow(/shard "h" is not host:port/);
    expect(() => parseClickHouseUrl("http://h:1/db;drop")).toThrow(/database "db;drop" is not an identifier/);
    expect(() => parseClickHouseUrl("http://h:1/db?cluster=a-b")).toThrow(/cluster "a-b"/);
  });

  it("places ids on shards evenly and deterministically", () => {
    const rng = seededRng(3);
    const hits = [0, 0];
    for (let i = 0; i < 20_000; i++) {
      const hex = Array.from({ length: 32 }, () => uniformInt(rng, 16).toString(16)).join("");
      const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`;
      expect(shardOf(uuid, 2)).toBe(shardOf(uuid, 2));
      hits[shardOf(uuid, 2)]!++;
    }
    // Binomial(20000, 1/2): sd 70.7; |z| < 5.
    expect(Math.abs(hits[0]! - 10_000)).toBeLessThan(5 * 70.7);
  });
});

describeWith(clickhouseCluster(), "ClickHouse storage: the storage contract on two shards", (cluster) => {
  const url = suiteClickhouseDatabase(cluster.url ?? "", "contract");
  const dir = suiteTempDir();

  it("stores each report id once, across batches of one group, across groups and across a reopen (as DuckDB)", async () => {
    const plan = planCalm(
      {
        schema: uniformSchema(4),
        n: 10_000,
        eps: 1,
        k: 2,
      },
      { l: 2 },
    );
    const scenario = async (open: () => Promise<CollectorStorage>) => {
      let storage = await open();
      const round = await storage.createRound(roundToStore(plan, "5d1e2f3a-0000-4000-8000-00000000a999"));
      const results = [
        ...(await Promise.all([
          storage.storeReports(round, [report(1, 0, [1]), report(2, 1, [0, 3])]),
          storage.storeReports(round, [report(2, 1, [0, 3]), report(3, 2, [2]), report(3, 2, [2])]),
        ])),
        await storage.storeReports(round, [report(1, 0, [1]), report(4, 0, [2])]),
      ];
      await storage.countRejected(round, "schema", 3);
      await storage.countRejected(round, "schema", 2);
      await storage.close();
      storage = await open();
      const again = (await storage.findRound(round.id))!;
      results.push(await storage.storeReports(again, [report(4, 0, [2]), report(5, 3, [1, 2])]));
      const counts = await storage.counts(again);
      const support = await storage.supportCounts(again);
      const missing = await storage.findRound(id(998));
      await storage.close();
      const closedWrite = await storage.storeReports(again, [report(6, 0, [0])]).then(
        () => "stored",
        (error: Error) => error,
      );
      return {
        again,
        results,
        counts,
        support: support.support.map((s) => Array.from(s)),
        reportsPerView: support.reportsPerView,
        missing,
        closedWrite,
      };
    };
    const clickhouse = await scenario(() => openStorage({ clickhouse: url }));
    const duckdb = await scenario(() => openDuckDbStorage(join(dir, "contract.duckdb")));
    expect(clickhouse.again.plan).toEqual(plan);
    expect(clickhouse.results).toEqual([
      { stored: 2, duplicates: 0 },
      { stored: 1, duplicates: 2 },
      { stored: 1, duplicates: 1 },
      { stored: 1, duplicates: 1 },
    ]);
    expect(clickhouse.counts).toMatchObject({ accepted: 5, duplicates: 4, rejected: { schema: 5 } });
    expect(clickhouse.counts.perView).toEqual([2, 1, 1, 1, 0, 0]);
    expect(clickhouse.reportsPerView).toEqual(clickhouse.counts.perView);
    expect(clickhouse.support[0]).toEqual([0, 1, 1, 0]);
    expect(clickhouse.support[1]).toEqual([1, 0, 0, 1]);
    expect(clickhouse.missing).toBeUndefined();
    expect(clickhouse.closedWrite).toBeInstanceOf(StorageError);
    // The same answers as DuckDB, call for call.
    expect({ ...clickhouse, again: undefined, closedWrite: undefined }).toEqual({
      ...duckdb,
      again: undefined,
      closedWrite: undefined,
    });
  });

  it("20,000 reports with 10% retried ids: the same ids, counts and estimates as DuckDB, cell for cell, before and after merges", async () => {
    const cardinalities = [2, 3, 2, 4, 2, 2];
    const plan = planCalm({
      schema: createSchema(cardinalities.map((c, i) => ({ name: `a${i}`, cardinality: c }))),
      n: 20_000,
      eps: 1,
      k: 2,
    });
    const rng = seededRng(19);
    const reports: AcceptedReport[] = [];
    for (let i = 0; i < 20_000; i++) {
      const view = uniformInt(rng, plan.m);
      const cells = plan.views[view]!.cells;
      const support = Array.from({ length: cells }, (_, x) => x).filter(() => bernoulli(rng, 0.3));
      reports.push({ id: id(i + 1), view, cells: support.length > 0 ? support : [uniformInt(rng, cells)] });
    }
    // One batch of 16,000 (8,000 ids per shard: an id lookup longer than the server's default
    // 256 KiB query), then batches of 100, then 10% of the reports again in batches of 50 (retries).
    const batches: AcceptedReport[][] = [reports.slice(0, 16_000)];
    for (let i = 16_000; i < reports.length; i += 100) batches.push(reports.slice(i, i + 100));
    const retried = reports.filter(() => bernoulli(rng, 0.1));
    for (let i = 0; i < retried.length; i += 50) batches.push(retried.slice(i, i + 50));
    const run = async (storage: CollectorStorage) => {
      const round = await storage.createRound(
        roundToStore(plan, "5d1e2f3a-0000-4000-8000-00000000b999", 20_000),
      );
      let stored = 0;
      for (let i = 0; i < batches.length; i += 8)
        for (const r of await Promise.all(batches.slice(i, i + 8).map((b) => storage.storeReports(round, b))))
          stored += r.stored;
      return { round, stored };
    };
    const duck = await openDuckDbStorage(join(dir, "compare.duckdb"));
    const ch = await openClickHouseStorage(url);
    const [d, c] = [await run(duck), await run(ch)];
    expect(c.stored).toBe(20_000);
    expect(d.stored).toBe(20_000);
    const expectSame = async () => {
      const [dc, cc] = [await duck.counts(d.round), await ch.counts(c.round)];
      expect(cc).toEqual(dc);
      expect(cc).toMatchObject({ accepted: 20_000, duplicates: retried.length });
      const [ds, cs] = [await duck.supportCounts(d.round), await ch.supportCounts(c.round)];
      expect(cs.reportsPerView).toEqual(ds.reportsPerView);
      cs.support.forEach((s, v) => {
        expect(Array.from(s), `view ${v}`).toEqual(Array.from(ds.support[v]!));
      });
      for (const q of [
        [0, 1],
        [2, 3],
        [0, 3, 5],
      ]) {
        const [de, ce] = [estimateMarginal(plan, ds, q), estimateMarginal(plan, cs, q)];
        expect(Array.from(ce.table.cells), q.join(",")).toEqual(Array.from(de.table.cells));
        expect(ce.n).toBe(20_000);
      }
    };
    await expectSame();
    // The ids on each shard are exactly those shardOf places there.
    const { database } = parseClickHouseUrl(url);
    const perShard = await onEveryShard(
      url,
      `SELECT count(), uniqExact(report_id) FROM ${database}.calm_reports WHERE round_no = ${c.round.no}`,
    );
    const expected = [0, 1].map((s) => reports.filter((r) => shardOf(r.id, 2) === s).length);
    expect(perShard.map((t) => t.trim())).toEqual(expected.map((e) => `${e}\t${e}`));
    // Merged: the maintained counts summed into one row per (round, view, cell), the same answers.
    await onEveryShard(url, `OPTIMIZE TABLE ${database}.calm_reports FINAL`);
    await onEveryShard(url, `OPTIMIZE TABLE ${database}.calm_cell_counts FINAL`);
    await expectSame();
    await duck.close();
    await ch.close();
  });

  it("two collectors racing on the same new ids (copies, some with other contents): the maintained counts equal a recount keeping one row per id, cell for cell; without the write-offs they would not", async () => {
    const plan = planCalm({ schema: uniformSchema(4), n: 4_000, eps: 1, k: 2 }, { l: 2 });
    const cellsPerView = plan.views.map((v) => v.cells);
    const rng = seededRng(41);
    const make = (i: number): AcceptedReport => {
      const view = uniformInt(rng, plan.m);
      return { id: id(50_000 + i), view, cells: [uniformInt(rng, plan.views[view]!.cells)] };
    };
    // B with two groups per shard in flight (its groups sharing ids run in order).
    const [a, b] = [await openClickHouseStorage(url), await openClickHouseStorage(url, { pipeline: 2 })];
    const round = await a.createRound(roundToStore(plan, "5d1e2f3a-0000-4000-8000-00000000c999", 4_000));
    const { database } = parseClickHouseUrl(url);
    let next = 0;
    let recount: Awaited<ReturnType<typeof recountFromRows>> | undefined;
    // Slices of 400 new ids in batches of 20, every batch sent to both collectors at once (B's copy of
    // every fifth report in another view), until some id was inserted by both (at most 10 slices).
    for (
      let attempt = 0;
      attempt < 10 && (recount === undefined || recount.rows === recount.ids);
      attempt++
    ) {
      const reports = Array.from({ length: 400 }, () => make(next++));
      const other = reports.map((r, i) => (i % 5 === 0 ? { ...make(next), id: r.id } : r));
      const sends: Promise<unknown>[] = [];
      for (let i = 0; i < 400; i += 20)
        sends.push(
          a.storeReports(round, reports.slice(i, i + 20)),
          b.storeReports(round, other.slice(i, i + 20)),
        );
      await Promise.all(sends);
      recount = await recountFromRows(url, round.no, cellsPerView);
    }
    console.log(
      `ClickHouse race test: ${recount!.rows - recount!.ids} ids inserted twice of ${recount!.ids}`,
    );
    expect(recount!.rows).toBeGreaterThan(recount!.ids);
    expect(recount!.ids).toBe(next);
    const expectExact = async () => {
      const counts = await a.supportCounts(round);
      expect(counts.reportsPerView).toEqual(recount!.reportsPerView);
      counts.support.forEach((s, v) => {
        expect(Array.from(s), `view ${v}`).toEqual(recount!.support[v]);
      });
      expect((await b.counts(round)).accepted).toBe(recount!.ids);
    };
    await expectExact();
    // The broken variant: the maintained counts alone count every copy.
    const raw = await onEveryShard(
      url,
      `SELECT sum(n) FROM ${database}.calm_cell_counts WHERE round_no = ${round.no} AND cell = 4294967295`,
    );
    expect(raw.reduce((s, t) => s + Number(t), 0)).toBe(recount!.rows);
    // A retry of every batch after the race (the lookup sees the copies again): still exact.
    for (let i = 0; i < next; i += 200)
      await b.storeReports(
        round,
        Array.from({ length: Math.min(200, next - i) }, (_, j) => make(i + j)).map((r, j) => ({
          ...r,
          id: id(50_000 + i + j),
        })),
      );
    await expectExact();
    await a.close();
    await b.close();
  });

  it("a cluster URL whose hosts are not the cluster's shards in order is refused before anything is stored", async () => {
    const { shards, database } = parseClickHouseUrl(url);
    const swapped = `${shards[1]},${shards[0]!.replace(/^http:\/\//, "")}/${database}?cluster=calm_ldp`;
    await expect(openClickHouseStorage(swapped)).rejects.toThrow(
      /is not shard [12] of 2 of cluster calm_ldp/,
    );
    await expect(openClickHouseStorage(url.replace("cluster=calm_ldp", "cluster=nope"))).rejects.toThrow(
      StorageError,
    );
  });
});
