import type { WireReport } from "@calm-ldp/client";
import { sendReports } from "@calm-ldp/client";
import { seededRng } from "@calm-ldp/random";
import { afterAll, describe, expect, it } from "vitest";
import { parseClickHouseUrl, shardOf } from "../src/clickhouse.js";
import { simulateUsers } from "../src/index.js";
import { clickhouseCluster, dropDatabase, freshDatabase, onEveryShard, shard } from "./clickhouse-cluster.js";
import {
  type CollectorProcess,
  call,
  createRound,
  inProcessAnswers,
  mixedRecords,
  roundBody,
  spawnCollector,
} from "./support.js";

const cluster = clickhouseCluster();
if (cluster.unavailable)
  console.warn(
    `\n*** SKIPPED: collector ClickHouse cluster tests: ClickHouse cannot be installed here: ${cluster.unavailable} ***\n`,
  );

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(cluster.unavailable !== undefined)(
  "ClickHouse: two collectors on a two-shard cluster",
  () => {
    const url = freshDatabase(cluster.url ?? "", "cluster");
    const processes: CollectorProcess[] = [];
    const spawn = async (port = 0) => {
      const p = await spawnCollector("clickhouse", url, port);
      processes.push(p);
      return p;
    };
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
    afterAll(async () => {
      for (const p of processes) if (p.child.exitCode === null) await p.kill("SIGKILL");
      shard("start", 2);
      await dropDatabase(url);
    });

    it("100,000 users through two collectors: counted once each, marginals equal the in-process estimate cell for cell", async () => {
      const [a, b] = await Promise.all([spawn(), spawn()]);
      const n = 100_000;
      const records = mixedRecords(n, 21);
      const { round, plan } = await createRound(a!.url, roundBody(records, 1, 2, n));
      expect((await call(`${b!.url}/v1/rounds/${round}/plan`, "GET", undefined, undefined)).status).toBe(200);
      const acknowledged = new Map<string, WireReport>();
      const sent: WireReport[][] = [];
      const result = await simulateUsers({
        url: [a!.url, b!.url],
        round,
        plan,
        records,
        concurrency: 8,
        batchSize: 100,
        rng: seededRng(22),
        onAcknowledged: (reports) => {
          for (const report of reports) acknowledged.set(report.id, report);
          if (sent.length < 40) sent.push([...reports]);
        },
      });
      expect(result).toMatchObject({
        users: n,
        acknowledged: n,
        duplicates: 0,
        rejected: 0,
        unacknowledged: 0,
      });
      // The same batches again, each to both collectors at once: all acknowledged, none stored again.
      const races = await Promise.all(
        sent.flatMap((batch) => [sendReports(a!.url, round, batch), sendReports(b!.url, round, batch)]),
      );
      for (const ack of races) expect(ack).toMatchObject({ stored: 0, duplicates: ack.acknowledged });
      const raced = sent.reduce((s, batch) => s + 2 * batch.length, 0);

      const status = await call(`${b!.url}/v1/rounds/${round}/status`, "GET");
      expect(status.body).toMatchObject({ accepted: n, duplicates: raced, rejected: {} });
      const { aggregator, answers } = inProcessAnswers(plan, acknowledged.values(), [
        [0, 1],
        [2, 5],
        [0, 2, 3, 7],
      ]);
      expect(status.body.perView).toEqual(aggregator.reportsPerView());
      for (const [i, attrs] of ["q0,q1", "q2,q5", "q0,q2,q3,q7"].entries()) {
        for (const p of [a!, b!]) {
          const answer = await call(`${p.url}/v1/rounds/${round}/marginals?attrs=${attrs}`, "GET");
          expect(answer.body.n).toBe(n);
          expect(answer.body.cells, attrs).toEqual(answers[i]);
        }
      }
      // Each id once in the cluster, on the shard shardOf names.
      const no = await roundNo(round);
      expect(await stored(no)).toBe(`${n}\t${n}`);
      const perShard = await onEveryShard(
        url,
        `SELECT count() FROM ${parseClickHouseUrl(url).database}.calm_reports WHERE round_no = ${no}`,
      );
      const ids = [...acknowledged.keys()];
      expect(perShard.map(Number)).toEqual(
        [0, 1].map((s) => ids.filter((id) => shardOf(id, 2) === s).length),
      );
      await Promise.all([a!.kill("SIGTERM"), b!.kill("SIGTERM")]);
    });

    it("kill -9 of a collector mid-load and a restart: every acknowledged report counted once", async () => {
      const [a, b] = await Promise.all([spawn(), spawn()]);
      const n = 20_000;
      const records = mixedRecords(n, 23);
      const { round, plan } = await createRound(a!.url, roundBody(records, 1, 2, n));
      const acknowledged = new Map<string, WireReport>();
      const load = simulateUsers({
        url: [a!.url, b!.url],
        round,
        plan,
        records,
        concurrency: 8,
        batchSize: 100,
        rng: seededRng(24),
        retryForMs: 60_000,
        onAcknowledged: (reports) => {
          for (const report of reports) acknowledged.set(report.id, report);
        },
      });
      for (let waited = 0; acknowledged.size < n / 4 && waited < 60_000; waited += 20) await sleep(20);
      await a!.kill("SIGKILL");
      const beforeKill = [...acknowledged.keys()];
      expect(beforeKill.length).toBeGreaterThanOrEqual(n / 4);
      expect(beforeKill.length).toBeLessThan(n);
      await sleep(300); // batches for A fail meanwhile and are retried
      const restarted = await spawn(a!.port);
      const result = await load;
      console.log(
        `ClickHouse crash test: ${beforeKill.length} of ${n} acknowledged before kill -9; ${result.retries} retried attempts; ${result.duplicates} acknowledged again as duplicates`,
      );
      expect(result.retries).toBeGreaterThan(0);
      expect(result).toMatchObject({ users: n, acknowledged: n, rejected: 0, unacknowledged: 0 });
      const status = await call(`${restarted.url}/v1/rounds/${round}/status`, "GET");
      expect(status.body.accepted).toBe(n);
      const no = await roundNo(round);
      expect(await stored(no)).toBe(`${n}\t${n}`);
      const present = await sql(
        `SELECT count() FROM ${parseClickHouseUrl(url).database}.calm_reports_all FINAL
       WHERE round_no = ${no} AND report_id IN (${beforeKill.map((id) => `'${id}'`).join(",")})`,
      );
      expect(Number(present)).toBe(beforeKill.length);
      const { answers } = inProcessAnswers(plan, acknowledged.values(), [[0, 1, 2]]);
      const answer = await call(`${b!.url}/v1/rounds/${round}/marginals?attrs=0,1,2`, "GET");
      expect(answer.body.cells).toEqual(answers[0]);
      await Promise.all([restarted.kill("SIGTERM"), b!.kill("SIGTERM")]);
    });

    it("one shard stopped mid-load: its batches get 503, clients retry, nothing lost or doubled once it is back", async () => {
      const [a, b] = await Promise.all([spawn(), spawn()]);
      const n = 20_000;
      const records = mixedRecords(n, 25);
      const { round, plan } = await createRound(a!.url, roundBody(records, 1, 2, n));
      const acknowledged = new Map<string, WireReport>();
      const load = simulateUsers({
        url: [a!.url, b!.url],
        round,
        plan,
        records,
        concurrency: 8,
        batchSize: 100,
        rng: seededRng(26),
        retryForMs: 60_000,
        onAcknowledged: (reports) => {
          for (const report of reports) acknowledged.set(report.id, report);
        },
      });
      for (let waited = 0; acknowledged.size < n / 4 && waited < 60_000; waited += 20) await sleep(20);
      shard("stop", 2);
      const atStop = acknowledged.size;
      // While shard 2 is down: a batch with a report for it is refused with 503 storage-unavailable.
      const probe = await fetch(`${a!.url}/v1/rounds/${round}/reports`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ round, reports: [] }),
      });
      expect(probe.status).toBe(400); // (an empty batch is refused before storage: the server is up)
      const status503 = await call(`${a!.url}/v1/rounds/${round}/status`, "GET");
      expect(status503.status).toBe(503);
      expect(status503.body.reason).toBe("storage-unavailable");
      await sleep(1500);
      const whileDown = acknowledged.size - atStop;
      shard("start", 2);
      const result = await load;
      console.log(
        `ClickHouse shard-down test: ${atStop} acknowledged before stopping shard 2, ${whileDown} while it was down (batches all on shard 1 or in flight); ${result.retries} retried attempts; ${result.duplicates} acknowledged as duplicates`,
      );
      expect(result.retries).toBeGreaterThan(0);
      expect(result).toMatchObject({ users: n, acknowledged: n, rejected: 0, unacknowledged: 0 });
      const status = await call(`${b!.url}/v1/rounds/${round}/status`, "GET");
      expect(status.body.accepted).toBe(n);
      const no = await roundNo(round);
      expect(await stored(no)).toBe(`${n}\t${n}`);
      const { answers, aggregator } = inProcessAnswers(plan, acknowledged.values(), [
        [0, 1, 2],
        [3, 4],
      ]);
      expect(status.body.perView).toEqual(aggregator.reportsPerView());
      for (const [i, attrs] of ["0,1,2", "3,4"].entries()) {
        const answer = await call(`${a!.url}/v1/rounds/${round}/marginals?attrs=${attrs}`, "GET");
        expect(answer.body.cells, attrs).toEqual(answers[i]);
      }
      await Promise.all([a!.kill("SIGTERM"), b!.kill("SIGTERM")]);
    });
  },
);
