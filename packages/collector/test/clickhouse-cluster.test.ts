import { afterAll, expect, it } from "vitest";
import { openClickHouseStorage, parseClickHouseUrl, shardOf } from "../src/clickhouse.js";
import { onEveryShard, recountFromRows, shard, suiteClickhouseDatabase } from "./clickhouse-cluster.js";
import {
  CollectorProcesses,
  call,
  clickhouseCluster,
  describeWith,
  expectSharedStore,
  sleep,
  startMixedLoad,
} from "./support.js";

describeWith(clickhouseCluster(), "ClickHouse: two collectors on a two-shard cluster", (cluster) => {
  // Dropped last (after hooks run in reverse order): after the hook below restarts shard 2.
  const url = suiteClickhouseDatabase(cluster.url ?? "", "cluster");
  const processes = new CollectorProcesses();
  const spawn = (port?: number) => processes.spawn("clickhouse", url, port);
  /** The Distributed table seen from shard 1, tab-separated. */
  const sql = async (query: string) => (await onEveryShard(url, query))[0]!.trim();
  const stored = (roundNo: number) =>
    sql(
      `SELECT count(), uniqExact(report_id) FROM ${parseClickHouseUrl(url).database}.calm_reports_all WHERE round_no = ${roundNo}`,
    );
  const roundNo = async (round: string) =>
    Number(
      await sql(
        `SELECT round_no FROM ${parseClickHouseUrl(url).database}.calm_rounds WHERE round_id = '${round}' LIMIT 1`,
      ),
    );
  /** The counts the collectors answer from (maintained) equal a full recount of the rows, cell for cell. */
  const expectMaintainedEqualRecount = async (id: string) => {
    const storage = await openClickHouseStorage(url);
    try {
      const round = (await storage.findRound(id))!;
      const counts = await storage.supportCounts(round);
      const recount = await recountFromRows(
        url,
        round.no,
        round.plan.views.map((v) => v.cells),
      );
      expect(counts.reportsPerView).toEqual(recount.reportsPerView);
      counts.support.forEach((s, v) => {
        expect(Array.from(s), `view ${v}`).toEqual(recount.support[v]);
      });
      return recount;
    } finally {
      await storage.close();
    }
  };
  afterAll(async () => {
    await processes.killAll();
    shard("start", 2);
  });

  it("100,000 users through two collectors: counted once each, marginals equal the in-process estimate cell for cell", async () => {
    const [a, b] = await Promise.all([spawn(), spawn()]);
    const n = 100_000;
    // Served by both, the batches raced to both again, counted once, marginals exact on both.
    const { round, load } = await expectSharedStore(a, b, n, 21);
    // Each id once in the cluster, on the shard shardOf names.
    const no = await roundNo(round);
    expect(await stored(no)).toBe(`${n}\t${n}`);
    expect((await expectMaintainedEqualRecount(round)).ids).toBe(n);
    const perShard = await onEveryShard(
      url,
      `SELECT count() FROM ${parseClickHouseUrl(url).database}.calm_reports WHERE round_no = ${no}`,
    );
    const ids = [...load.acknowledged.keys()];
    expect(perShard.map(Number)).toEqual([0, 1].map((s) => ids.filter((id) => shardOf(id, 2) === s).length));
    await Promise.all([a.kill("SIGTERM"), b.kill("SIGTERM")]);
  });

  /** Two fresh collectors and 20,000 users reporting through both (retrying for 60 s), a quarter acknowledged. */
  const faultLoad = async (seed: number) => {
    const [a, b] = await Promise.all([spawn(), spawn()]);
    const n = 20_000;
    const { round, load } = await startMixedLoad([a.url, b.url], n, seed, { retryForMs: 60_000 });
    await load.until(n / 4);
    return { a, b, n, round, load };
  };

  it("kill -9 of a collector mid-load and a restart: every acknowledged report counted once", async () => {
    const { a, b, n, round, load } = await faultLoad(23);
    await a.kill("SIGKILL");
    const beforeKill = [...load.acknowledged.keys()];
    expect(beforeKill.length).toBeLessThan(n);
    await sleep(300); // batches for A fail meanwhile and are retried
    const restarted = await spawn(a.port);
    const result = await load.finish();
    console.log(
      `ClickHouse crash test: ${beforeKill.length} of ${n} acknowledged before kill -9; ${result.retries} retried attempts; ${result.duplicates} acknowledged again as duplicates`,
    );
    expect(result.retries).toBeGreaterThan(0);
    const no = await roundNo(round);
    expect(await stored(no)).toBe(`${n}\t${n}`);
    const present = await sql(
      `SELECT uniqExact(report_id) FROM ${parseClickHouseUrl(url).database}.calm_reports_all
       WHERE round_no = ${no} AND report_id IN (${beforeKill.map((id) => `'${id}'`).join(",")})`,
    );
    expect(Number(present)).toBe(beforeKill.length);
    expect((await expectMaintainedEqualRecount(round)).ids).toBe(n);
    await load.expectCountedOnce([restarted.url, b.url], { "0,1,2": [0, 1, 2] });
    await Promise.all([restarted.kill("SIGTERM"), b.kill("SIGTERM")]);
  });

  it("one shard stopped mid-load: its batches get 503, clients retry, nothing lost or doubled once it is back", async () => {
    const { a, b, n, round, load } = await faultLoad(25);
    shard("stop", 2);
    const atStop = load.acknowledged.size;
    // While shard 2 is down: a batch with a report for it is refused with 503 storage-unavailable.
    const probe = await fetch(`${a.url}/v1/rounds/${round}/reports`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ round, reports: [] }),
    });
    expect(probe.status).toBe(400); // (an empty batch is refused before storage: the server is up)
    const status503 = await call(`${a.url}/v1/rounds/${round}/status`, "GET");
    expect(status503.status).toBe(503);
    expect(status503.body.reason).toBe("storage-unavailable");
    await sleep(1500);
    const whileDown = load.acknowledged.size - atStop;
    shard("start", 2);
    const result = await load.finish();
    console.log(
      `ClickHouse shard-down test: ${atStop} acknowledged before stopping shard 2, ${whileDown} while it was down (batches all on shard 1 or in flight); ${result.retries} retried attempts; ${result.duplicates} acknowledged as duplicates`,
    );
    expect(result.retries).toBeGreaterThan(0);
    const no = await roundNo(round);
    expect(await stored(no)).toBe(`${n}\t${n}`);
    expect((await expectMaintainedEqualRecount(round)).ids).toBe(n);
    await load.expectCountedOnce([b.url, a.url], {
      "0,1,2": [0, 1, 2],
      "3,4": [3, 4],
    });
    await Promise.all([a.kill("SIGTERM"), b.kill("SIGTERM")]);
  });
});
